// The hostile-input suite: what the worst receipts an attacker can make cost the verifier, next to an ordinary
// receipt of the same request size (issue 10's bound: at most 10× on the server; scripts/bench-hostile measures
// the server itself under wrk, these need no network).
//
// Each hostile receipt fails verification, so it is never cached and pays the cold path on every call; the
// ordinary one is valid and verified on a warm cache, as a server's steady state has it. Both go through one
// verifier trusting certs/test-root.pem, as `receipt-server --root certs/test-root.pem` does.

import Benchmark
import Foundation
import HostileReceipts
import ReceiptVerification

/// The hostile receipts measured here: the worst on the server (a failing chain of four small RSA-2,048
/// certificates: four `d2i_X509` and four RSA checks per request) and the worst of the megabyte-sized ones (tiny
/// in-app purchases read by the general BER reader). Non-RSA keys, the worst before, are now refused before
/// OpenSSL parses them (`scripts/bench-hostile` still measures them).
let hostileSuite = ["rsa2048-small-partial-path", "empty-purchases-general-reader-1MiB"]

/// The throwaway PKI and the catalogue, made once per process (two 4,096-bit keys: a few seconds).
let hostileCatalogue: HostileCatalogue = {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "receipt-benchmarks-hostile-\(getpid())")
    // The receipts are minted into memory, so the certificates and keys are removed as soon as they are.
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
        let pki = try HostilePKI.make(in: directory, repositoryRoot: Inputs.repositoryRoot)
        return try HostileCatalogue(pki: pki, repositoryRoot: Inputs.repositoryRoot, only: Set(hostileSuite))
    } catch {
        fatalError("hostile inputs: \(error)")
    }
}()

/// A few iterations are enough for receipts that cost up to a second each; no malloc thresholds (OpenSSL's
/// allocations on a failing path are not the contract here).
func hostileConfiguration() -> Benchmark.Configuration {
    let milliseconds = ProcessInfo.processInfo.environment["BENCH_MAX_DURATION_MS"].flatMap { Int($0) } ?? 2000
    return .init(
        metrics: metrics, warmupIterations: 1, maxDuration: .milliseconds(milliseconds), maxIterations: 100_000)
}

/// The verifier and the receipt's bytes; for the ordinary receipt, after one verification that must be valid
/// (so its chain is cached), for the hostile one after one that must not be.
func hostileSetup(_ name: String, ordinary: Bool) -> Box<(verifier: ReceiptVerifier, bytes: [UInt8])> {
    guard let variant = hostileCatalogue.hostile.first(where: { $0.name == name }) else {
        fatalError("no hostile receipt \(name)")
    }
    let verifier = ReceiptVerifier(configuration: .init(trustAnchors: Inputs.anchors))
    let input: HostileVariant
    do {
        input = ordinary ? try hostileCatalogue.ordinary(matching: variant) : variant
    } catch {
        fatalError("\(error)")
    }
    let verdict = verifier.verify(input.bytes)
    guard (verdict.outcome == .valid) == ordinary else { fatalError("\(input.name) verified as \(verdict)") }
    return Box((verifier: verifier, bytes: input.bytes))
}

func hostileBenchmarks() {
    for name in hostileSuite {
        for ordinary in [false, true] {
            let benchmarkName = ordinary ? "hostile-ordinary-same-size-as-\(name)" : "hostile-\(name)"
            Benchmark(benchmarkName, configuration: hostileConfiguration()) { benchmark, state in
                for _ in benchmark.scaledIterations {
                    blackHole(state.value.verifier.verify(state.value.bytes))
                }
            } setup: {
                hostileSetup(name, ordinary: ordinary)
            }
        }
    }
}
