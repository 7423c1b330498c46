// verify-bench: how fast receipts decode and verify, against OpenSSL's own RSA and digest rates
// measured in the same process. Prints one Markdown table.
//
//   swift run -c release --package-path Benchmarks --scratch-path Benchmarks/.build verify-bench [--shared DIR]
//
// Uses the real receipts in ../shared/receipts when present (6 KB: aprv-purchasingexp-sandbox-2023-02;
// 79 KB: tpi-nutcall-alert-sandbox-2020-187iap), else the project's minted fixtures.

import CBenchOpenSSL
import Dispatch
import Foundation
import ReceiptModel
import ReceiptVerification
import Synchronization

// MARK: inputs

let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()  // Benchmarks
    .deletingLastPathComponent()
var sharedDirectory = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
var loopOnly: String?  // `--loop decode|warm|warm-decoded`: repeat one operation for 5 s (for `perf record`)
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--shared", let path = arguments.popFirst() { sharedDirectory = URL(fileURLWithPath: path) }
    if argument == "--loop", let mode = arguments.popFirst() { loopOnly = mode }
}

struct Input {
    var name: String
    var bytes: [UInt8]
}

func load(_ url: URL) -> [UInt8]? { (try? Data(contentsOf: url)).map { [UInt8]($0) } }

let receipts = sharedDirectory.appendingPathComponent("receipts")
let small: Input
let large: Input
var anchors = TrustAnchors()
if let smallBytes = load(receipts.appendingPathComponent("aprv-purchasingexp-sandbox-2023-02.receipt")),
    let largeBytes = load(receipts.appendingPathComponent("tpi-nutcall-alert-sandbox-2020-187iap.receipt"))
{
    small = Input(name: "aprv-purchasingexp-sandbox-2023-02", bytes: smallBytes)
    large = Input(name: "tpi-nutcall-alert-sandbox-2020-187iap", bytes: largeBytes)
} else {
    let fixtures = packageRoot.appendingPathComponent("fixtures")
    guard let smallBytes = load(fixtures.appendingPathComponent("valid-sha256.receipt")),
        let largeBytes = load(fixtures.appendingPathComponent("valid-large-1200-purchases.receipt"))
    else { fatalError("neither ../shared/receipts nor fixtures/ found") }
    small = Input(name: "fixture valid-sha256", bytes: smallBytes)
    large = Input(name: "fixture valid-large-1200-purchases", bytes: largeBytes)
    try anchors.addRoots(fromPath: packageRoot.appendingPathComponent("certs/test-root.pem").path)
}

// MARK: timing

/// Runs `body` in rounds until about `seconds` have passed and returns the best round's time per call,
/// in nanoseconds (the minimum is the least noisy statistic on a shared VM).
func measure(seconds: Double = 1.0, batch: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    for _ in 0..<max(1, batch / 10) { body() }  // warm-up
    var best = Double.infinity
    let deadline = clock.now + .milliseconds(Int(seconds * 1000))
    repeat {
        let start = clock.now
        for _ in 0..<batch { body() }
        let elapsed = clock.now - start
        let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        best = min(best, ns / Double(batch))
    } while clock.now < deadline
    return best
}

/// Runs `threads` threads at once, each calling the closure `makeWork(thread)` returns `iterations`
/// times; returns calls per second (best of 3). Each thread builds its own inputs, as a server's
/// requests would own theirs, so the figure shows sharing inside the verifier, not in the benchmark.
func throughput(
    threads: Int, iterations: Int, _ makeWork: @escaping @Sendable (Int) -> () -> Void
) -> Double {
    let clock = ContinuousClock()
    var best = 0.0
    for _ in 0..<3 {
        let start = clock.now
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let work = makeWork(thread)
            for _ in 0..<iterations { work() }
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        best = max(best, Double(threads * iterations) / seconds)
    }
    return best
}

/// A copy of `bytes` in a buffer of its own (Array's copy-on-write would otherwise share one).
func ownCopy(_ bytes: [UInt8]) -> [UInt8] { bytes.map { $0 } }

@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

if let loopOnly {
    let verifier = ReceiptVerifier(configuration: .init(trustAnchors: anchors))
    let decoded = try AppReceipt(berEncoded: small.bytes)
    let threads = loopOnly.hasSuffix("-2") ? 2 : 1
    let mode = loopOnly.hasSuffix("-2") ? String(loopOnly.dropLast(2)) : loopOnly
    let source = small.bytes
    let counts = Mutex<Int>(0)
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
        let bytes = source.map { $0 }
        guard let decoded = try? AppReceipt(berEncoded: bytes) else { return }
        let deadline = ContinuousClock.now + .seconds(5)
        var done = 0
        defer { counts.withLock { $0 += done } }
        while ContinuousClock.now < deadline {
            done += 1000
            for _ in 0..<1000 {
                switch mode {
                case "decode": blackHole(try? AppReceipt(berEncoded: bytes))
                case "warm": blackHole(verifier.verify(bytes))
                default: blackHole(verifier.verify(decoded))
                }
            }
        }
    }
    print("\(loopOnly): \(counts.withLock { $0 } / 5) calls/s on \(threads) thread(s)")
    exit(0)
}

// MARK: decode

let decodeSmall = measure(batch: 2000) { blackHole(try? AppReceipt(berEncoded: small.bytes)) }
let decodeLarge = measure(batch: 200) { blackHole(try? AppReceipt(berEncoded: large.bytes)) }
// The split: the PKCS#7 envelope alone, and the payload alone.
let decodeEnvelope = measure(batch: 2000) { blackHole(try? SignedData(berEncoded: small.bytes[...])) }
let smallPayload = try SignedData(berEncoded: small.bytes[...]).payload
let decodePayload = measure(batch: 2000) { blackHole(try? ReceiptPayload(berEncoded: smallPayload)) }

// MARK: verification

let verifier = ReceiptVerifier(configuration: .init(trustAnchors: anchors))
let first = verifier.verify(small.bytes)
guard first.outcome == .valid else { fatalError("\(small.name) does not verify: \(first)") }
let decoded = try AppReceipt(berEncoded: small.bytes)

let warmNs = measure(batch: 2000) { blackHole(verifier.verify(small.bytes)) }
let warmDecodedNs = measure(batch: 2000) { blackHole(verifier.verify(decoded)) }
let smallBytes = small.bytes
let verifyBytesWork: @Sendable (Int) -> () -> Void = { _ in
    let mine = ownCopy(smallBytes)
    return { blackHole(verifier.verify(mine)) }
}
let warm1 = throughput(threads: 1, iterations: 20_000, verifyBytesWork)
let warm2 = throughput(threads: 2, iterations: 20_000, verifyBytesWork)
let coldNs = measure(batch: 100) {
    let fresh = ReceiptVerifier(configuration: .init(trustAnchors: anchors))
    blackHole(fresh.verify(small.bytes))
}

// MARK: OpenSSL baseline on the same signature and payload

let signer = decoded.signedData.signerInfos[0]
let digestName = signer.digestAlgorithm.algorithm.description == "1.3.14.3.2.26" ? "SHA1" : "SHA256"
guard let md = EVP_MD_fetch(nil, digestName, nil) else { fatalError("no \(digestName)") }
let payload = decoded.signedData.eContent
let digest: [UInt8] = {
    var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    payload.withUnsafeBytes { input in _ = EVP_Digest(input.baseAddress, input.count, &out, &length, md, nil) }
    return Array(out.prefix(Int(length)))
}()
let digestNs = measure(batch: 5000) {
    var out = [UInt8](repeating: 0, count: 64)
    var length: UInt32 = 0
    payload.withUnsafeBytes { input in _ = EVP_Digest(input.baseAddress, input.count, &out, &length, md, nil) }
    blackHole(out)
}

// The signer's key: the embedded certificate that verifies the signature.
var signerKey: OpaquePointer?
for der in decoded.signedData.certificates {
    let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
        var cursor = buffer.baseAddress
        guard let x509 = d2i_X509(nil, &cursor, buffer.count) else { return nil }
        defer { X509_free(x509) }
        return X509_get_pubkey(x509)
    }
    guard let key else { continue }
    let context = EVP_PKEY_CTX_new(key, nil)
    EVP_PKEY_verify_init(context)
    EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING)
    EVP_PKEY_CTX_set_signature_md(context, md)
    let ok = signer.signature.withUnsafeBufferPointer { sig in
        EVP_PKEY_verify(context, sig.baseAddress, sig.count, digest, digest.count)
    }
    EVP_PKEY_CTX_free(context)
    if ok == 1 {
        signerKey = key
        break
    }
    EVP_PKEY_free(key)
}
guard let signerKey else { fatalError("no embedded certificate verifies the signature") }
let keyBits = EVP_PKEY_get_bits(signerKey)
// Raw rate as `openssl speed` measures it: one context, initialised once, verify in a loop.
let rawContext = EVP_PKEY_CTX_new(signerKey, nil)
EVP_PKEY_verify_init(rawContext)
EVP_PKEY_CTX_set_rsa_padding(rawContext, RSA_PKCS1_PADDING)
EVP_PKEY_CTX_set_signature_md(rawContext, md)
let signatureBytes = Array(signer.signature)
let rawRSANs = measure(batch: 5000) {
    let ok = signatureBytes.withUnsafeBufferPointer { sig in
        EVP_PKEY_verify(rawContext, sig.baseAddress, sig.count, digest, digest.count)
    }
    precondition(ok == 1)
}

// The machine's own scaling, for reading the 2-thread figures: raw RSA with one context per thread.
final class RawRSA: @unchecked Sendable {  // each thread gets its own instance and context
    let context: OpaquePointer?
    let signatureBytes: [UInt8]
    let digest: [UInt8]
    init(key: OpaquePointer, md: OpaquePointer, signature: [UInt8], digest: [UInt8]) {
        context = EVP_PKEY_CTX_new(key, nil)
        EVP_PKEY_verify_init(context)
        EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING)
        EVP_PKEY_CTX_set_signature_md(context, md)
        signatureBytes = signature
        self.digest = digest
    }
    func run(_ iterations: Int) {
        for _ in 0..<iterations {
            let ok = signatureBytes.withUnsafeBufferPointer { sig in
                EVP_PKEY_verify(context, sig.baseAddress, sig.count, digest, digest.count)
            }
            precondition(ok == 1)
        }
    }
}
let rawContexts = (0..<2).map { _ in RawRSA(key: signerKey, md: md, signature: signatureBytes, digest: digest) }
func rawThroughput(threads: Int) -> Double {
    let clock = ContinuousClock()
    var best = 0.0
    for _ in 0..<3 {
        let start = clock.now
        DispatchQueue.concurrentPerform(iterations: threads) { index in rawContexts[index].run(20_000) }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        best = max(best, Double(threads * 20_000) / seconds)
    }
    return best
}
let raw1 = rawThroughput(threads: 1)
let raw2 = rawThroughput(threads: 2)
let verifyDecodedWork: @Sendable (Int) -> () -> Void = { _ in
    guard let mine = try? AppReceipt(berEncoded: ownCopy(smallBytes)) else { fatalError("decode failed") }
    return { blackHole(verifier.verify(mine)) }
}
let warmDecoded1 = throughput(threads: 1, iterations: 20_000, verifyDecodedWork)
let warmDecoded2 = throughput(threads: 2, iterations: 20_000, verifyDecodedWork)

// MARK: report

func perSecond(_ ns: Double) -> String { String(format: "%.0f/s", 1e9 / ns) }
func micro(_ ns: Double) -> String { String(format: "%.1f µs", ns / 1000) }

let rawRate = 1e9 / rawRSANs
print(
    """
    | measurement (\(small.name), \(small.bytes.count) B; digest \(digestName); RSA-\(keyBits)) | per call | rate |
    |---|---:|---:|
    | decode \(small.name) (\(small.bytes.count) B) | \(micro(decodeSmall)) | \(perSecond(decodeSmall)) |
    | … of which the PKCS#7 envelope (SignedData) | \(micro(decodeEnvelope)) | \(perSecond(decodeEnvelope)) |
    | … of which the payload (ReceiptPayload, \(smallPayload.count) B) | \(micro(decodePayload)) | \(perSecond(decodePayload)) |
    | decode \(large.name) (\(large.bytes.count) B) | \(micro(decodeLarge)) | \(perSecond(decodeLarge)) |
    | verify bytes, warm cache, 1 thread | \(micro(warmNs)) | \(perSecond(warmNs)) |
    | verify decoded AppReceipt, warm cache, 1 thread | \(micro(warmDecodedNs)) | \(perSecond(warmDecodedNs)) |
    | verify bytes, warm cache, 1 thread (throughput) | | \(String(format: "%.0f/s", warm1)) |
    | verify bytes, warm cache, 2 threads (throughput) | | \(String(format: "%.0f/s", warm2)) (×\(String(format: "%.2f", warm2 / warm1))) |
    | verify decoded AppReceipt, warm cache, 1 / 2 threads (throughput) | | \(String(format: "%.0f/s / %.0f/s (×%.2f)", warmDecoded1, warmDecoded2, warmDecoded2 / warmDecoded1)) |
    | OpenSSL raw RSA-\(keyBits) verify, 1 / 2 threads (throughput) | | \(String(format: "%.0f/s / %.0f/s (×%.2f)", raw1, raw2, raw2 / raw1)) |
    | verify bytes, cold cache (new verifier) | \(micro(coldNs)) | \(perSecond(coldNs)) |
    | OpenSSL raw RSA-\(keyBits) verify (reused context) | \(micro(rawRSANs)) | \(perSecond(rawRSANs)) |
    | OpenSSL \(digestName) of the \(payload.count) B payload | \(micro(digestNs)) | \(perSecond(digestNs)) |
    | **warm / raw RSA** (target ≥ 60%) | | **\(String(format: "%.0f%%", 100 * (1e9 / warmNs) / rawRate))** |
    | warm decoded / raw RSA | | \(String(format: "%.0f%%", 100 * (1e9 / warmDecodedNs) / rawRate)) |

    cache: \(verifier.cacheStatistics)
    """)
