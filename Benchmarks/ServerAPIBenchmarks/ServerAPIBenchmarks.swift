// The App Store Server API client's cost per call (issue 26), against OpenSSL's raw ECDSA P-256 verify measured in
// the same process.
//
//   swift package --package-path Benchmarks --scratch-path .build-bench benchmark --target ServerAPIBenchmarks
//
// One operation per iteration: wallClock is the cost of one, throughput how many per second. Names start with the
// step: floor, token, verify, call.
//   floor-es256-verify            SHA-256 of a signed transaction's signing input + ECDSA P-256 verify, OpenSSL,
//                                 reused context (the least any signed item costs)
//   token-sign                    one API token: header and claims JSON, base64url, ES256 signature
//   token-cached                  the client's token lookup while the held token is fresh
//   verify-signed-transaction     ReceiptVerifier.verifyJWS of one signed transaction as the client verifies an
//                                 item (kind transaction, chain cache warm)
//   call-transaction-info         Get Transaction Info against the stand-in in this process over loopback HTTP:
//                                 rate budget, token, request, the stand-in's answer (its token check included),
//                                 parsing, one item verified
//   call-history-page-20          Get Transaction History answered in one page of 20 signed transactions, each
//                                 verified

@_spi(Benchmarks) import AppleStandIn
import Benchmark
import Foundation
import ReceiptModel
@_spi(Benchmarks) import ReceiptRemote
import ReceiptVerification

let metrics: [BenchmarkMetric] = [.throughput, .wallClock, .mallocCountTotal]

/// `BENCH_MAX_DURATION_MS` shortens every benchmark (for trying the harness; reports use the default 2 s).
func configuration() -> Benchmark.Configuration {
    let milliseconds = ProcessInfo.processInfo.environment["BENCH_MAX_DURATION_MS"].flatMap { Int($0) } ?? 2000
    return .init(
        metrics: metrics, warmupIterations: 20, maxDuration: .milliseconds(milliseconds), maxIterations: 200_000)
}

/// What a setup hands its benchmark: a class, so that package-benchmark's cast from `Any` is a pointer cast.
final class Box<Value>: @unchecked Sendable {  // read by the benchmark's one measuring thread only
    let value: Value
    init(_ value: Value) { self.value = value }
}

enum Inputs {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let certs = repositoryRoot.appendingPathComponent("certs")
    static let keyPEM: String = {
        let path = certs.appendingPathComponent("test-only-keys/test-app-store-api.key.pem").path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fatalError("cannot read \(path)") }
        return text
    }()
    static let keyID = "BENCHKEY01"
    static let issuerID = "57246542-96fe-1a63-e053-0824d011072a"
    static let bundleID = "com.example.standin"
    /// A signed transaction minted under the test JWS PKI (fixtures/jws, fixtures/README.md).
    static let signedTransaction: String = {
        let path = repositoryRoot.appendingPathComponent("fixtures/jws/valid-transaction-auto-renewable-sandbox.jws")
            .path
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fatalError("cannot read \(path)") }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    /// The default configuration plus the test JWS root, as an operator's extra root.
    static func verifier() -> ReceiptVerifier {
        var anchors = TrustAnchors()
        do { try anchors.addRoots(fromPath: certs.appendingPathComponent("test-jws-root.pem").path) } catch {
            fatalError("cannot load the test JWS root: \(error)")
        }
        return ReceiptVerifier(configuration: .init(trustAnchors: anchors))
    }

    static func key() -> AppStoreAPIKey {
        do { return try AppStoreAPIKey(pem: keyPEM, keyID: keyID, issuerID: issuerID) } catch {
            fatalError("the test key does not load: \(error)")
        }
    }

    /// A client of `standIn` (or of no one). The rate is set far above what one thread reaches, so that the
    /// budget is checked on every call but never waits: the benchmark measures the call, not Apple's rate.
    static func client(_ standIn: InProcessStandInAPI?) -> AppStoreServerAPIClient {
        let configuration = AppStoreServerAPIClient.Configuration(
            productionURL: standIn?.productionAPIBaseURL ?? "http://127.0.0.1:9",
            sandboxURL: standIn?.sandboxAPIBaseURL ?? "http://127.0.0.1:9", requestsPerSecond: 1_000_000)
        do {
            return try AppStoreServerAPIClient(key: key(), verifier: verifier(), configuration: configuration)
        } catch {
            fatalError("cannot make the client: \(error)")
        }
    }
}

/// A running stand-in with a 20-transaction customer per environment, and a client whose first calls succeeded.
final class Calls: @unchecked Sendable {  // read by the benchmark's one measuring thread only
    let standIn: InProcessStandInAPI
    let client: AppStoreServerAPIClient

    init() async {
        do {
            standIn = try await InProcessStandInAPI.start(
                transactions: 20, bundleID: Inputs.bundleID, certs: Inputs.certs, privateKeyPEM: Inputs.keyPEM,
                keyID: Inputs.keyID, issuerID: Inputs.issuerID)
        } catch {
            fatalError("the stand-in does not start: \(error)")
        }
        client = Inputs.client(standIn)
        do {
            let info = try await client.transactionInfo(
                "2000000000000001", bundleID: Inputs.bundleID, environment: .production)
            let history = try await client.transactionHistory(
                "2000000000000001", bundleID: Inputs.bundleID, environment: .production)
            guard info.items.count == 1, info.items.allSatisfy(\.isValid), history.pages == 1,
                history.items.count == 20, history.items.allSatisfy(\.isValid)
            else {
                fatalError("the stand-in's answers do not verify: \(info.items.map(\.verdict))")
            }
        } catch {
            fatalError("the first calls failed: \(error)")
        }
    }
}

nonisolated(unsafe) let benchmarks: @Sendable () -> Void = {
    Benchmark("floor-es256-verify", configuration: configuration()) { benchmark, floor in
        for _ in benchmark.scaledIterations { blackHole(floor.value.digestAndVerify()) }
    } setup: {
        Box(ECDSAFloor(jws: Inputs.signedTransaction))
    }

    Benchmark("token-sign", configuration: configuration()) { benchmark, key in
        var second: Int64 = 1_767_225_600
        for _ in benchmark.scaledIterations {
            second += 1
            blackHole(try? key.value.token(bundleID: Inputs.bundleID, issuedAt: second, lifetime: 1200))
        }
    } setup: {
        Box(Inputs.key())
    }

    Benchmark("token-cached", configuration: configuration()) {
        (benchmark: Benchmark, client: Box<AppStoreServerAPIClient>) in
        let now = Int64(Date().timeIntervalSince1970)
        for _ in benchmark.scaledIterations {
            blackHole(try? client.value.currentToken(for: Inputs.bundleID, now: now))
        }
    } setup: {
        let client = Inputs.client(nil)
        _ = try client.currentToken(for: Inputs.bundleID, now: Int64(Date().timeIntervalSince1970))
        return Box(client)
    }

    Benchmark("verify-signed-transaction", configuration: configuration()) {
        (benchmark: Benchmark, input: Box<(ReceiptVerifier, [UInt8])>) in
        let (verifier, bytes) = input.value
        let now = ReceiptDate(clockSecondsSince1970: Date().timeIntervalSince1970)
        for _ in benchmark.scaledIterations {
            blackHole(verifier.verifyJWS(bytes[...], kind: .transaction, now: now))
        }
    } setup: {
        let verifier = Inputs.verifier()
        let bytes = Array(Inputs.signedTransaction.utf8)
        let verdict = verifier.verifyJWS(bytes[...], kind: .transaction)
        guard verdict.isValid else { fatalError("the signed transaction does not verify: \(verdict)") }
        return Box((verifier, bytes))
    }

    Benchmark("call-transaction-info", configuration: configuration()) { benchmark, calls in
        for _ in benchmark.scaledIterations {
            blackHole(
                try? await calls.client.transactionInfo(
                    "2000000000000001", bundleID: Inputs.bundleID, environment: .production))
        }
    } setup: {
        await Calls()
    }

    Benchmark("call-history-page-20", configuration: configuration()) { benchmark, calls in
        for _ in benchmark.scaledIterations {
            blackHole(
                try? await calls.client.transactionHistory(
                    "2000000000000001", bundleID: Inputs.bundleID, environment: .production))
        }
    } setup: {
        await Calls()
    }
}
