import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

@Suite("Concurrent verification")
struct ConcurrentVerificationTests {
    /// Hundreds of verifications from many tasks against one shared verifier: every verdict stays right
    /// and the cache ends with one entry per distinct chain.
    @Test func manyTasksShareOneVerifier() async throws {
        var inputs: [(bytes: [UInt8], outcome: Verdict.Outcome, code: Reason.Code?)] = []
        for name in [
            "valid-sha256", "valid-sha1", "valid-ber-indefinite", "valid-chain-without-root", "tampered-payload",
            "leaf-without-marker", "ios6-valid",
        ] {
            let fixture = try VerificationTestData.fixture(name)
            let outcome = try #require(Verdict.Outcome(rawValue: fixture.verdict))
            inputs.append((fixture.bytes, outcome, fixture.reason.flatMap(Self.code)))
        }
        if SharedTestData.isAvailable {
            for name in [
                "aprv-purchasingexp-sandbox-2023-02", "rc-sampleapp-sandbox-2020", "tpi-weeka-sandbox-g5-2025",
            ] {
                inputs.append((try SharedTestData.receiptBytes(name), .valid, nil))
            }
        }
        let verifier = try VerificationTestData.fixtureVerifier()
        let cases = inputs
        let total = 480
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for index in 0..<total {
                group.addTask {
                    let input = cases[index % cases.count]
                    let verdict = verifier.verify(input.bytes)
                    return verdict.outcome == input.outcome && verdict.reason?.code == input.code ? 0 : 1
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
        let statistics = verifier.cacheStatistics
        #expect(statistics.hits + statistics.misses >= total - total / cases.count)
        #expect(statistics.hits > total / 2)
    }

    static func code(_ text: String) -> Reason.Code? {
        let all: [Reason.Code] = [
            .signatureMismatch, .chainLeafMarkerMissing, .ios6ChainIncomplete, .chainUntrustedRoot,
        ]
        return all.first { $0.description == text }
    }
}
