import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

@Suite("Verified-chain cache")
struct ChainCacheTests {
    @Test func secondVerificationOfTheSameChainIsAHit() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let bytes = try VerificationTestData.fixture("valid-sha256").bytes
        #expect(verifier.verify(bytes).outcome == .valid)
        #expect(verifier.cacheStatistics.hits == 0)
        #expect(verifier.cacheStatistics.misses == 1)
        #expect(verifier.verify(bytes).outcome == .valid)
        #expect(verifier.cacheStatistics.hits == 1)
        #expect(verifier.cacheStatistics.misses == 1)
        #expect(verifier.cacheStatistics.entries == 1)
    }

    @Test func anotherReceiptThroughTheSameChainIsAHit() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        #expect(verifier.verify(try VerificationTestData.fixture("valid-sha256").bytes).isValid)
        // Same certificates, different payload and encoding.
        #expect(verifier.verify(try VerificationTestData.fixture("valid-ber-indefinite").bytes).isValid)
        #expect(verifier.cacheStatistics.hits == 1)
    }

    @Test func aTimeOutsideTheVerifiedWindowIsAMiss() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let bytes = try VerificationTestData.fixture("valid-sha256").bytes
        #expect(verifier.verify(bytes).isValid)
        let late = try #require(ReceiptDate(rfc3339: "2039-01-01T00:00:00Z"))
        let verdict = verifier.verify(bytes, validationTime: .fixed(late))
        #expect(verdict.reason?.code == .chainExpired)
        #expect(verifier.cacheStatistics.hits == 0)
        #expect(verifier.cacheStatistics.misses == 2)
        let inside = try #require(ReceiptDate(rfc3339: "2030-01-01T00:00:00Z"))
        #expect(verifier.verify(bytes, validationTime: .fixed(inside)).isValid)
        #expect(verifier.cacheStatistics.hits == 1)
    }

    @Test func failedChainsAreNotCached() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let bytes = try VerificationTestData.fixture("leaf-without-marker").bytes
        for _ in 0..<2 { #expect(verifier.verify(bytes).reason?.code == .chainLeafMarkerMissing) }
        #expect(verifier.cacheStatistics.hits == 0)
        #expect(verifier.cacheStatistics.entries == 0)
    }

    @Test func cacheIsBounded() throws {
        let verifier = ReceiptVerifier(
            configuration: .init(trustAnchors: try VerificationTestData.testPKIAnchors(), chainCacheCapacity: 1))
        let sha256 = try VerificationTestData.fixture("valid-sha256").bytes
        let withoutRoot = try VerificationTestData.fixture("valid-chain-without-root").bytes
        #expect(verifier.verify(sha256).isValid)
        #expect(verifier.verify(withoutRoot).isValid)
        #expect(verifier.cacheStatistics.entries == 1)
        #expect(verifier.verify(sha256).isValid)
        #expect(verifier.cacheStatistics.misses == 3)
    }

    /// A receipt the policy refuses stores its chain in a free slot, but never evicts one: the cache's key holds bytes
    /// the signature does not cover, so refused receipts must not push the operator's own chains out.
    @Test func aRefusedReceiptTakesAFreeSlotButNeverEvicts() throws {
        func verifier() throws -> ReceiptVerifier {
            ReceiptVerifier(
                configuration: .init(trustAnchors: try VerificationTestData.testPKIAnchors(), chainCacheCapacity: 1))
        }
        let sha256 = try VerificationTestData.fixture("valid-sha256").bytes
        let withoutRoot = try VerificationTestData.fixture("valid-chain-without-root").bytes
        let otherApp = ReceiptPolicy(acceptedBundleIDs: ["org.example.other"])

        let full = try verifier()
        #expect(full.verify(sha256).isValid)
        #expect(full.verify(withoutRoot, policy: otherApp).reason?.code == .policyBundleIDRejected)
        #expect(full.cacheStatistics.entries == 1)
        #expect(full.verify(sha256).isValid)
        #expect(full.cacheStatistics.hits == 1)

        let empty = try verifier()
        #expect(empty.verify(withoutRoot, policy: otherApp).reason?.code == .policyBundleIDRejected)
        #expect(empty.cacheStatistics.entries == 1)
        #expect(empty.verify(withoutRoot, policy: otherApp).reason?.code == .policyBundleIDRejected)
        #expect(empty.cacheStatistics.hits == 1)
        // An accepted receipt still makes room for itself.
        #expect(empty.verify(sha256).isValid)
        #expect(empty.verify(sha256).isValid)
        #expect(empty.cacheStatistics.hits == 2)
    }

    /// The cache finds a slot by lengths and the certificates' last bytes; a certificate changed anywhere
    /// else has the same hash and must still miss, and fail validation on its own.
    @Test func aCertificateChangedAwayFromItsTailIsAMiss() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let original = try VerificationTestData.fixture("valid-sha256").bytes
        #expect(verifier.verify(original).isValid)

        // The leaf's subject, "…Test Receipt Signing": mid-certificate, far from its signature.
        let marker = Array("Test Receipt Signing".utf8)
        let start = try #require(
            original.indices.first { original[$0...].starts(with: marker) })
        var altered = original
        altered[start] ^= 0x20  // 'T' -> 't': same length, same tail
        let verdict = verifier.verify(altered)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .chainInvalidSignature)
        #expect(verifier.cacheStatistics.hits == 0)
        #expect(verifier.cacheStatistics.misses == 2)

        // The failed chain neither replaced nor poisoned the stored one.
        #expect(verifier.verify(original).isValid)
        #expect(verifier.cacheStatistics.hits == 1)
    }

    @Test func tamperedPayloadThroughACachedChainIsStillCaught() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        #expect(verifier.verify(try VerificationTestData.fixture("valid-sha256").bytes).isValid)
        let verdict = verifier.verify(try VerificationTestData.fixture("tampered-payload").bytes)
        #expect(verdict.reason?.code == .signatureMismatch)
        #expect(verifier.cacheStatistics.hits == 1)
    }
}
