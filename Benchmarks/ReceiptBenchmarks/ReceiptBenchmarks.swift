// The cost of one receipt, step by step, against OpenSSL's own floor measured in the same process.
//
//   swift package --package-path Benchmarks --scratch-path .build-bench benchmark
//
// Every benchmark does one operation per iteration, so wallClock is the cost of one receipt, throughput is
// receipts per second and mallocCountTotal is allocations per receipt (the checked-in thresholds under
// Thresholds/ guard the malloc counts only: times on a shared VM are not repeatable enough to gate on).
// Names start with the suite: decode, linearity, hostile, verify, json, server, floor.

@_spi(Fuzzing) import BER
import Benchmark
import Foundation
import ReceiptModel
@_spi(Fuzzing) import ReceiptRemote
@_spi(Fuzzing) import ReceiptServer
import ReceiptVerification

/// The metrics of every suite.
let metrics: [BenchmarkMetric] = [.throughput, .wallClock, .mallocCountTotal]

/// Tolerances for `benchmark thresholds check` against Thresholds/*.p90.json: allocation counts must match
/// exactly where only Swift code runs; OpenSSL's own allocations may vary by a few with its internal caches.
/// `BENCH_MAX_DURATION_MS` shortens every benchmark (for trying the harness; reports use the default 2 s).
func configuration(mallocTolerance: Int = 0) -> Benchmark.Configuration {
    let milliseconds = ProcessInfo.processInfo.environment["BENCH_MAX_DURATION_MS"].flatMap { Int($0) } ?? 2000
    return .init(
        metrics: metrics,
        warmupIterations: 20,
        maxDuration: .milliseconds(milliseconds),
        maxIterations: 200_000,
        thresholds: [.mallocCountTotal: .init(absolute: [.p90: mallocTolerance])]
    )
}

/// A fixed "now" for the rendered `request_date*` keys: the path must not read the clock per receipt here
/// any more than the server's own cost model does (the server reads it once per request).
let requestDate = ReceiptDate(clampingMillisecondsSince1970: 1_767_225_600_000)

/// What the server does with one request body, without the network: VerifyReceiptController's steps
/// from the parsed body to the response bytes (JSON in, decode, verify, Apple-shaped JSON out).
@inline(never)
func serverPath(body: [UInt8], verifier: ReceiptVerifier) -> [UInt8] {
    guard let json = try? RequestJSON(parsing: body), let receiptData = try? json.string("receipt-data") else {
        return VerifyReceiptBody.status(21000)
    }
    let result = AttributedVerdict.local(verifier.verify(receiptData, validationTime: .receiptCreation))
    let status = VerifyReceiptStatus.status(of: result, endpoint: .sandbox)
    return VerifyReceiptBody.answer(
        result, status: status, requestDate: requestDate, excludeOldTransactions: false, receiptData: nil)
}

/// What a setup hands its benchmark. package-benchmark casts the setup result from `Any` on every iteration;
/// a class makes that a pointer cast, with no copying of structs out of an existential box.
final class Box<Value>: @unchecked Sendable {  // read by the benchmark's one measuring thread only
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A verifier whose cache already holds `input`'s chain; stops the run unless the receipt is valid.
func warmVerifier(for input: BenchInput) -> ReceiptVerifier {
    let verifier = ReceiptVerifier(configuration: .init(trustAnchors: Inputs.anchors))
    let verdict = verifier.verify(input.bytes)
    guard verdict.outcome == .valid else { fatalError("\(input.name) does not verify: \(verdict)") }
    return verifier
}

/// The receipt's bytes, after checking that they decode.
func decodeSetup(_ choice: ReceiptChoice) -> Box<[UInt8]> {
    _ = Inputs.decoded(choice.input)
    return Box(choice.input.bytes)
}

/// Reads every element of `reader`, descending into every constructed one, as a generic BER consumer would;
/// returns how many it read.
@inline(never)
func walkAll(_ reader: inout BERReader) throws(BERError) -> Int {
    var count = 0
    while let element = try reader.next() {
        count += 1
        if element.tag.isConstructed {
            var children = try element.children()
            count += try walkAll(&children)
        }
    }
    return count
}

/// The hostile input, after checking that the walk reads all of it.
func hostileWalkSetup() -> Box<[UInt8]> {
    let bytes = Inputs.nestedIndefinite1MiB.bytes
    var reader = BERReader(bytes[...])
    guard let count = try? walkAll(&reader), count == 31 + (bytes.count - 31 * 4) / 2 else {
        fatalError("the nested indefinite input does not walk")
    }
    return Box(bytes)
}

/// A warm verifier and the request body, after checking that the path answers status 0.
func serverSetup(_ choice: ReceiptChoice) -> Box<(verifier: ReceiptVerifier, body: [UInt8])> {
    let verifier = warmVerifier(for: choice.input)
    let body = Inputs.requestBody(choice.input)
    let answer = String(decoding: serverPath(body: body, verifier: verifier).prefix(12), as: UTF8.self)
    guard answer == "{\"status\":0," else { fatalError("\(choice.input.name): the server path answered \(answer)") }
    return Box((verifier: verifier, body: body))
}

nonisolated(unsafe) let benchmarks: @Sendable () -> Void = {
    // MARK: decode only (PKCS#7 envelope and every payload attribute, from DER bytes)

    for (name, choice) in [
        ("decode-small-6KB", .small),
        ("decode-large-79KB-187iap", .large),
        ("decode-minted-1000iap", .minted1000),
    ] as [(String, ReceiptChoice)] {
        Benchmark(name, configuration: configuration()) { benchmark, bytes in
            for _ in benchmark.scaledIterations { blackHole(try? AppReceipt(berEncoded: bytes.value)) }
        } setup: {
            decodeSetup(choice)
        }
    }

    // MARK: decode cost vs purchase count (minted receipts, same shape, 1 / 100 / 1,000 purchases)

    for (name, choice) in [
        ("linearity-decode-1iap", .minted1),
        ("linearity-decode-100iap", .minted100),
        ("linearity-decode-1000iap", .minted1000),
    ] as [(String, ReceiptChoice)] {
        Benchmark(name, configuration: configuration()) { benchmark, bytes in
            for _ in benchmark.scaledIterations { blackHole(try? AppReceipt(berEncoded: bytes.value)) }
        } setup: {
            decodeSetup(choice)
        }
    }

    // MARK: hostile nested indefinite-length BER against an ordinary receipt of the same size (issue 10, 4(b))

    // The three inputs have the same size (the hostile ones are built to the minted receipt's), so the ratio
    // of their times is the ratio per byte.
    Benchmark("hostile-decode-ordinary-1MiB", configuration: configuration()) { benchmark, bytes in
        for _ in benchmark.scaledIterations { blackHole(try? AppReceipt(berEncoded: bytes.value)) }
    } setup: {
        decodeSetup(.minted1MiB)
    }

    Benchmark("hostile-ber-walk-nested-indefinite-1MiB", configuration: configuration()) { benchmark, bytes in
        for _ in benchmark.scaledIterations {
            var reader = BERReader(bytes.value[...])
            blackHole(try? walkAll(&reader))
        }
    } setup: {
        hostileWalkSetup()
    }

    Benchmark("hostile-decode-nested-junk-1MiB", configuration: configuration()) { benchmark, bytes in
        for _ in benchmark.scaledIterations { blackHole(try? AppReceipt(berEncoded: bytes.value)) }
    } setup: {
        decodeSetup(.nestedJunkReceipt)
    }

    // MARK: verify (6 KB receipt): warm chain cache, already-decoded receipt, cold cache

    Benchmark("verify-warm-small", configuration: configuration(mallocTolerance: 2)) { benchmark, state in
        for _ in benchmark.scaledIterations { blackHole(state.value.verifier.verify(state.value.bytes)) }
    } setup: {
        Box((verifier: warmVerifier(for: Inputs.small), bytes: Inputs.small.bytes))
    }

    Benchmark("verify-warm-large-79KB-187iap", configuration: configuration(mallocTolerance: 2)) { benchmark, state in
        for _ in benchmark.scaledIterations { blackHole(state.value.verifier.verify(state.value.bytes)) }
    } setup: {
        Box((verifier: warmVerifier(for: Inputs.large), bytes: Inputs.large.bytes))
    }

    Benchmark("verify-warm-decoded-small", configuration: configuration(mallocTolerance: 2)) { benchmark, state in
        for _ in benchmark.scaledIterations { blackHole(state.value.verifier.verify(state.value.receipt)) }
    } setup: {
        Box((verifier: warmVerifier(for: Inputs.small), receipt: Inputs.decoded(Inputs.small)))
    }

    Benchmark("verify-cold-small", configuration: configuration(mallocTolerance: 20)) { benchmark, bytes in
        for _ in benchmark.scaledIterations {
            // A new verifier each time: an empty chain cache, so every receipt parses its certificates and
            // runs X509_verify_cert, as a naive verifier would.
            let verifier = ReceiptVerifier(configuration: .init(trustAnchors: Inputs.anchors))
            blackHole(verifier.verify(bytes.value))
        }
    } setup: {
        decodeSetup(.small)
    }

    // MARK: Apple-shaped JSON of a decoded receipt

    for (name, choice) in [
        ("json-render-small-6KB", .small),
        ("json-render-large-79KB-187iap", .large),
    ] as [(String, ReceiptChoice)] {
        Benchmark(name, configuration: configuration()) { benchmark, payload in
            for _ in benchmark.scaledIterations { blackHole(AppleReceiptJSON.render(payload.value)) }
        } setup: {
            Box(Inputs.decoded(choice.input).payload)
        }
    }

    // MARK: the server's whole path without the network (base64 in, decode, verify, JSON out)

    for (name, choice) in [
        ("server-path-small-6KB", .small),
        ("server-path-large-79KB-187iap", .large),
    ] as [(String, ReceiptChoice)] {
        Benchmark(name, configuration: configuration(mallocTolerance: 2)) { benchmark, state in
            for _ in benchmark.scaledIterations {
                blackHole(serverPath(body: state.value.body, verifier: state.value.verifier))
            }
        } setup: {
            serverSetup(choice)
        }
    }

    // MARK: the floor: OpenSSL's raw RSA verify and the digest of the same receipt's payload

    Benchmark("floor-rsa-verify-small", configuration: configuration(mallocTolerance: 2)) { benchmark, floor in
        for _ in benchmark.scaledIterations { blackHole(floor.verifySignature()) }
    } setup: {
        OpenSSLFloor(Inputs.decoded(Inputs.small))
    }

    Benchmark("floor-digest-small", configuration: configuration(mallocTolerance: 2)) { benchmark, floor in
        for _ in benchmark.scaledIterations { blackHole(floor.digestPayload()) }
    } setup: {
        OpenSSLFloor(Inputs.decoded(Inputs.small))
    }

    Benchmark("floor-rsa-verify-plus-digest-small", configuration: configuration(mallocTolerance: 2)) {
        benchmark, floor in
        for _ in benchmark.scaledIterations {
            blackHole(floor.digestPayload())
            blackHole(floor.verifySignature())
        }
    } setup: {
        OpenSSLFloor(Inputs.decoded(Inputs.small))
    }

    // MARK: hostile receipts against ordinary ones of the same size (HostileBenchmarks.swift)

    hostileBenchmarks()
}
