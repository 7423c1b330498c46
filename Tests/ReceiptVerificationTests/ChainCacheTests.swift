import ReceiptModel
import ReceiptVerification
import Testing
import TestSupport

@Suite("Verified-chain cache")
struct ChainCacheTests {
    @Test func secondVerificationOfTheSameChainIsAHit() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let bytes = try VerificationTestData.fixture("valid-sha256").bytes
        #expect(verifier.verify(receiptBytes: bytes).outcome == .valid)
        #expect(verifier.cacheStatistics.hits == 0)
        #expect(verifier.cacheStatistics.misses == 1)
        #expect(verifier.verify(receiptBytes: bytes).outcome == .valid)
        #expect(verifier.cacheStatistics.hits == 1)
        #expect(verifier.cacheStatistics.misses == 1)
        #expect(verifier.cacheStatistics.entries == 1)
    }

    @Test func anotherReceiptThroughTheSameChainIsAHit() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        #expect(verifier.verify(receiptBytes: try VerificationTestData.fixture("valid-sha256").bytes).isValid)
        // Same certificates, different payload and encoding.
        #expect(verifier.verify(receiptBytes: try VerificationTestData.fixture("valid-ber-indefinite").bytes).isValid)
        #expect(verifier.cacheStatistics.hits == 1)
    }

    @Test func aTimeOutsideTheVerifiedWindowIsAMiss() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let bytes = try VerificationTestData.fixture("valid-sha256").bytes
        #expect(verifier.verify(receiptBytes: bytes).isValid)
        let late = try #require(ReceiptDate(rfc3339: "2039-01-01T00:00:00Z"))
        let verdict = verifier.verify(receiptBytes: bytes, validationTime: .fixed(late))
        #expect(verdict.reason?.code == .chainExpired)
        #expect(verifier.cacheStatistics.hits == 0)
        #expect(verifier.cacheStatistics.misses == 2)
        let inside = try #require(ReceiptDate(rfc3339: "2030-01-01T00:00:00Z"))
        #expect(verifier.verify(receiptBytes: bytes, validationTime: .fixed(inside)).isValid)
        #expect(verifier.cacheStatistics.hits == 1)
    }

    @Test func failedChainsAreNotCached() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let bytes = try VerificationTestData.fixture("leaf-without-marker").bytes
        for _ in 0..<2 { #expect(verifier.verify(receiptBytes: bytes).reason?.code == .chainLeafMarkerMissing) }
        #expect(verifier.cacheStatistics.hits == 0)
        #expect(verifier.cacheStatistics.entries == 0)
    }

    @Test func cacheIsBounded() throws {
        let verifier = ReceiptVerifier(
            configuration: .init(trustAnchors: try VerificationTestData.testPKIAnchors(), chainCacheCapacity: 1))
        let sha256 = try VerificationTestData.fixture("valid-sha256").bytes
        let withoutRoot = try VerificationTestData.fixture("valid-chain-without-root").bytes
        #expect(verifier.verify(receiptBytes: sha256).isValid)
        #expect(verifier.verify(receiptBytes: withoutRoot).isValid)
        #expect(verifier.cacheStatistics.entries == 1)
        #expect(verifier.verify(receiptBytes: sha256).isValid)
        #expect(verifier.cacheStatistics.misses == 3)
    }

    @Test func tamperedPayloadThroughACachedChainIsStillCaught() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        #expect(verifier.verify(receiptBytes: try VerificationTestData.fixture("valid-sha256").bytes).isValid)
        let verdict = verifier.verify(receiptBytes: try VerificationTestData.fixture("tampered-payload").bytes)
        #expect(verdict.reason?.code == .signatureMismatch)
        #expect(verifier.cacheStatistics.hits == 1)
    }
}
