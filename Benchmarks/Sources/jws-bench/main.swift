// jws-bench: StoreKit 2 JWS verification throughput (issue 14), the Swift half of scripts/bench-jws.
//
//   swift run -c release --package-path Benchmarks --scratch-path .build-bench jws-bench \
//       [--shared DIR] [--fixtures DIR] [--seconds S] [--round N] [--export DIR] [--loop warm|cold[-2]]
//
// Measures `ReceiptVerifier.verifyJWS` on a real Apple JWS (../shared/receipts/jws/jws-goiap-renewal-sandbox.jws,
// default configuration: Apple Root CA - G3 pinned, validation at the payload's signedDate) and, when
// fixtures/jws holds one that verifies, a minted JWS:
//   warm: one verifier shared by every thread, its chain cache filled by a first call;
//   cold: a new verifier per call, so every call decodes and validates the x5c chain.
// Each on 1 and 2 threads, each thread verifying its own copy of the text (as a server's requests own theirs),
// for S seconds of wall-clock time. Every call must answer `valid`.
//
// Output: one tab-separated line per measurement on stdout, for scripts/bench-support/jws_report.py:
//   swift  ROUND  INPUT  warm|cold  THREADS  CALLS  WALL_SECONDS  PROCESS_CPU_SECONDS
// `--export DIR` instead writes what the C++ half (Benchmarks/crypto-engines, mode `jws`) needs to check the
// same signature with OpenSSL and Crypto++: signing-input, signature (r ‖ s), leaf.der (x5c[0]).
// `--loop MODE` repeats one operation for 5 s on the real JWS, for `perf record`.

import Dispatch
import Foundation
import ReceiptModel
import ReceiptVerification
import Synchronization

// MARK: arguments

let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()  // Benchmarks
    .deletingLastPathComponent()
var sharedDirectory = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
var fixturesDirectory = packageRoot.appendingPathComponent("fixtures/jws")
var seconds = 1.0
var round = 0
var exportDirectory: URL?
var loopMode: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    guard let value = arguments.popFirst() else { fatalError("\(argument) needs a value") }
    switch argument {
    case "--shared": sharedDirectory = URL(fileURLWithPath: value)
    case "--fixtures": fixturesDirectory = URL(fileURLWithPath: value)
    case "--seconds": seconds = Double(value) ?? seconds
    case "--round": round = Int(value) ?? 0
    case "--export": exportDirectory = URL(fileURLWithPath: value)
    case "--loop": loopMode = value
    default: fatalError("unknown argument \(argument)")
    }
}

func log(_ text: String) { FileHandle.standardError.write(Data("jws-bench: \(text)\n".utf8)) }
func load(_ url: URL) -> [UInt8]? { (try? Data(contentsOf: url)).map { [UInt8]($0) } }

// MARK: inputs

/// One JWS and the configuration under which it verifies.
struct Input: Sendable {
    var name: String
    var text: [UInt8]
    var configuration: ReceiptVerifier.Configuration
}

let realURL = sharedDirectory.appendingPathComponent("receipts/jws/jws-goiap-renewal-sandbox.jws")
guard let realText = load(realURL) else { fatalError("no \(realURL.path)") }
var inputs = [Input(name: "jws-goiap-renewal-sandbox (Apple)", text: realText, configuration: .init())]

// A minted JWS, when another branch has added them: the first one that verifies `valid` under the default
// configuration plus, as extra roots, every PEM certificate in fixtures/jws and the test roots (the JWS fixtures are
// signed under certs/test-jws-root.pem; without it no minted JWS verified and only the Apple one was measured).
if loopMode == nil, exportDirectory == nil,
    let names = try? FileManager.default.contentsOfDirectory(atPath: fixturesDirectory.path)
{
    var anchors = TrustAnchors()
    let pems = names.filter { $0.hasSuffix(".pem") }.map { fixturesDirectory.appendingPathComponent($0).path }
    for root in ["test-root.pem", "test-jws-root.pem"] {
        try? anchors.addRoots(fromPath: packageRoot.appendingPathComponent("certs/\(root)").path)
    }
    for pem in pems {
        try? anchors.addRoots(fromPath: pem)
    }
    let configuration = ReceiptVerifier.Configuration(trustAnchors: anchors)
    // Names that start with "valid" first, then the rest, alphabetically.
    let candidates = names.filter { $0.hasSuffix(".jws") }.sorted {
        ($0.hasPrefix("valid") ? 0 : 1, $0) < ($1.hasPrefix("valid") ? 0 : 1, $1)
    }
    var found = false
    for name in candidates {
        guard let text = load(fixturesDirectory.appendingPathComponent(name)) else { continue }
        if ReceiptVerifier(configuration: configuration).verifyJWS(text[...]).outcome == .valid {
            inputs.append(Input(name: "\(name.dropLast(4)) (minted)", text: text, configuration: configuration))
            found = true
            break
        }
    }
    if !found { log("\(fixturesDirectory.path): no minted JWS verifies valid; measuring the Apple one only") }
}

for input in inputs {
    let verdict = ReceiptVerifier(configuration: input.configuration).verifyJWS(input.text[...])
    guard verdict.outcome == .valid else { fatalError("\(input.name) does not verify: \(verdict)") }
}

// MARK: export for the C++ half

if let exportDirectory {
    let jws = try CompactJWS(realText[...])
    guard let leaf = jws.certificates?.first else { fatalError("the Apple JWS has no x5c") }
    try FileManager.default.createDirectory(at: exportDirectory, withIntermediateDirectories: true)
    try Data(jws.signingInput).write(to: exportDirectory.appendingPathComponent("signing-input"))
    try Data(jws.signature).write(to: exportDirectory.appendingPathComponent("signature"))
    try Data(leaf).write(to: exportDirectory.appendingPathComponent("leaf.der"))
    exit(0)
}

// MARK: timing

@inline(never) @Sendable func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// What one call does: verify `text` with the shared warm verifier, or with a new one.
enum Mode: String { case warm, cold }

/// Runs `threads` threads for `seconds` of wall-clock time, each verifying its own copy of `input`; returns
/// the calls made, the wall-clock seconds and the process CPU seconds the run took.
func run(_ input: Input, _ mode: Mode, threads: Int, seconds: Double) -> (calls: Int, wall: Double, cpu: Double) {
    let warm = ReceiptVerifier(configuration: input.configuration)
    precondition(warm.verifyJWS(input.text[...]).outcome == .valid)  // fills the chain cache
    let calls = Mutex(0)
    let clock = ContinuousClock()
    let cpuStart = processCPUSeconds()
    let start = clock.now
    let deadline = start + .milliseconds(Int(seconds * 1000))
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
        let mine = input.text.map { $0 }  // a buffer of its own (a plain copy would share storage)
        var done = 0
        while clock.now < deadline {
            for _ in 0..<8 {
                let verifier = mode == .warm ? warm : ReceiptVerifier(configuration: input.configuration)
                let verdict = verifier.verifyJWS(mine[...])
                precondition(verdict.outcome == .valid)
                blackHole(verdict)
            }
            done += 8
        }
        calls.withLock { $0 += done }
    }
    let elapsed = clock.now - start
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (calls.withLock { $0 }, wall, processCPUSeconds() - cpuStart)
}

if let loopMode {
    let threads = loopMode.hasSuffix("-2") ? 2 : 1
    guard let mode = Mode(rawValue: loopMode.hasSuffix("-2") ? String(loopMode.dropLast(2)) : loopMode) else {
        fatalError("--loop warm|cold|warm-2|cold-2")
    }
    let result = run(inputs[0], mode, threads: threads, seconds: 5)
    print("\(loopMode): \(Int(Double(result.calls) / result.wall)) calls/s on \(threads) thread(s)")
    exit(0)
}

for input in inputs {
    for mode in [Mode.warm, .cold] {
        for threads in [1, 2] {
            let result = run(input, mode, threads: threads, seconds: seconds)
            print("swift\t\(round)\t\(input.name)\t\(mode)\t\(threads)\t\(result.calls)\t\(result.wall)\t\(result.cpu)")
        }
    }
}
