// hostile-bench: the most expensive receipts an attacker can make within the verifier's limits, next to ordinary
// receipts of the same request size. scripts/bench-hostile uses `mint` and drives the server with wrk.
//
//   swift run -c release --package-path Benchmarks --scratch-path .build-bench hostile-bench mint --out DIR
//   … hostile-bench measure [--seconds S] [--only NAME,NAME]     verifier cost in-process (no server), one table
//   … hostile-bench loop NAME [--seconds S] [--out DIR]          one receipt over and over, for perf/callgrind
//
// `mint` writes DIR/pki (the throwaway certificates), DIR/NAME.receipt and DIR/NAME.json (the request body) for
// every hostile receipt and its ordinary counterpart, and DIR/manifest.tsv. Nothing here belongs in the repository.

import Foundation
import HostileReceipts
import ReceiptModel
import ReceiptVerification

let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()  // Benchmarks
    .deletingLastPathComponent()

var arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.isEmpty ? "measure" : arguments.removeFirst()
var output: URL?
var seconds = 3.0
var only: Set<String> = []
var loopName: String?
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    let value = argument.hasPrefix("--") && !arguments.isEmpty ? arguments.removeFirst() : ""
    switch argument {
    case "--out": output = URL(fileURLWithPath: value)
    case "--seconds": seconds = Double(value) ?? seconds
    case "--only": only = Set(value.split(separator: ",").map(String.init))
    default: loopName = argument
    }
}
if mode == "loop", let loopName { only = [loopName] }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("hostile-bench: \(message)\n".utf8))
    exit(1)
}

/// The server's verifier: Apple's pinned roots plus `--root certs/test-root.pem`.
func serverVerifier() -> ReceiptVerifier {
    var anchors = TrustAnchors()
    do {
        try anchors.addRoots(fromPath: repositoryRoot.appendingPathComponent("certs/test-root.pem").path)
    } catch {
        fail("certs/test-root.pem: \(error)")
    }
    return ReceiptVerifier(configuration: .init(trustAnchors: anchors))
}

func verdictSummary(_ verdict: Verdict) -> String {
    "\(verdict.outcome)"
        + (verdict.reasons.isEmpty ? "" : " (\(verdict.reasons.map { "\($0.code)" }.joined(separator: ", ")))")
}

/// The median time of one call, in microseconds, over about `seconds` (at least 3 calls).
func medianMicroseconds(seconds: Double, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var samples: [Double] = []
    let end = clock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
    while samples.count < 3 || clock.now < end {
        let start = clock.now
        body()
        let elapsed = clock.now - start
        samples.append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
    }
    samples.sort()
    return samples[samples.count / 2]
}

let scratch = output ?? FileManager.default.temporaryDirectory.appendingPathComponent("hostile-bench-\(getpid())")
let pkiDirectory = scratch.appendingPathComponent("pki")
let catalogue: HostileCatalogue
do {
    // `--out` keeps the folder, and with it a PKI a later run may reuse (two 4,096-bit keys take seconds).
    let pki = try HostilePKI.reuseOrMake(in: pkiDirectory, repositoryRoot: repositoryRoot)
    catalogue = try HostileCatalogue(pki: pki, repositoryRoot: repositoryRoot, only: only)
} catch {
    fail("\(error)")
}
if catalogue.hostile.isEmpty { fail("no hostile receipt named \(only.sorted())") }

switch mode {
case "mint":
    var manifest = "name\tordinary\thostile_body_bytes\tordinary_body_bytes\tsummary\tordinary_summary\n"
    for variant in catalogue.hostile {
        let ordinary: HostileVariant
        do {
            ordinary = try catalogue.ordinary(matching: variant)
        } catch {
            fail("\(error)")
        }
        for item in [variant, ordinary] {
            do {
                try Data(item.bytes).write(to: scratch.appendingPathComponent("\(item.name).receipt"))
                try Data(item.requestBody).write(to: scratch.appendingPathComponent("\(item.name).json"))
            } catch {
                fail("cannot write \(item.name): \(error)")
            }
        }
        manifest +=
            "\(variant.name)\t\(ordinary.name)\t\(variant.requestBody.count)\t\(ordinary.requestBody.count)\t"
            + "\(variant.summary)\t\(ordinary.summary)\n"
        FileHandle.standardError.write(Data("hostile-bench: minted \(variant.name) and \(ordinary.name)\n".utf8))
    }
    do {
        try Data(manifest.utf8).write(to: scratch.appendingPathComponent("manifest.tsv"))
    } catch {
        fail("cannot write the manifest: \(error)")
    }

case "measure":
    print(
        "| hostile receipt | request bytes | verdict | µs per request (verifier) | ordinary request bytes | ordinary µs (warm) | ratio |"
    )
    print("|---|---:|---|---:|---:|---:|---:|")
    for variant in catalogue.hostile {
        let ordinary: HostileVariant
        do {
            ordinary = try catalogue.ordinary(matching: variant)
        } catch {
            fail("\(error)")
        }
        // One verifier for both, as the server has: the ordinary receipt's chain is cached, the hostile one never is.
        let verifier = serverVerifier()
        let ordinaryVerdict = verifier.verify(ordinary.bytes)
        guard ordinaryVerdict.outcome == .valid else { fail("\(ordinary.name) is \(verdictSummary(ordinaryVerdict))") }
        let hostileVerdict = verifier.verify(variant.bytes)
        let hostileCost = medianMicroseconds(seconds: seconds) { _ = verifier.verify(variant.bytes) }
        let ordinaryCost = medianMicroseconds(seconds: seconds) { _ = verifier.verify(ordinary.bytes) }
        print(
            "| \(variant.name) | \(variant.requestBody.count) | \(verdictSummary(hostileVerdict)) | "
                + String(format: "%.1f", hostileCost) + " | \(ordinary.requestBody.count) | "
                + String(format: "%.1f", ordinaryCost) + " | " + String(format: "%.1f", hostileCost / ordinaryCost)
                + " |")
    }

case "loop":
    guard let variant = catalogue.hostile.first else { fail("usage: hostile-bench loop NAME [--seconds S]") }
    let verifier = serverVerifier()
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
    var count = 0
    while clock.now < end {
        _ = verifier.verify(variant.bytes)
        count += 1
    }
    print("\(variant.name): \(count) verifications in \(seconds) s")

default:
    fail("unknown mode \(mode) (mint, measure, loop)")
}
if output == nil { try? FileManager.default.removeItem(at: scratch) }
