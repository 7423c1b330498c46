import Foundation
import ReceiptForge
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

/// Embedded certificates are not signed, so anyone can leave one out. A chain that stops at a missing issuer
/// is `inconclusive` only when the certificates that are present prove nothing wrong: leaving the root out
/// must never turn an `invalid` receipt into one that goes to Apple.
@Suite("Incomplete chains")
struct IncompleteChainTests {
    static let pki = TestPKI(directory: VerificationTestData.certsDirectory)

    /// The fixture `name` minted again without the test root, for a verifier that does not trust that root:
    /// the path stops at a missing issuer.
    static func withoutRoot(_ name: String) throws -> [UInt8] {
        let file = VerificationTestData.fixturesDirectory.appendingPathComponent("descriptions/\(name).json")
        var request = try MintRequest(json: Data(contentsOf: file))
        try #require(request.signing.certificates.contains("test-root"))
        request.signing.certificates.removeAll { $0 == "test-root" }
        return try request.mint(pki: pki)
    }

    @Test(arguments: [
        ("leaf-without-marker", Reason.Code.chainLeafMarkerMissing),
        ("intermediate-without-marker", .chainIntermediateMarkerMissing),
        ("intermediate-not-ca", .chainNotACA),
        ("expired-leaf", .chainExpired),
        ("forged-issuer-signature", .chainInvalidSignature),
        ("tampered-payload", .signatureMismatch),
    ])
    func provableFailuresStayInvalidWithoutTheRoot(name: String, code: Reason.Code) throws {
        let verdict = ReceiptVerifier().verify(try Self.withoutRoot(name))
        // The provable finding decides; an incomplete chain may still be listed after it (tampered-payload's is).
        #expect(verdict.outcome == .invalid, "\(verdict.reasons)")
        #expect(verdict.reason?.code == code, "\(verdict.reasons)")
    }

    @Test func aSoundPartialPathIsIncomplete() throws {
        let verdict = ReceiptVerifier().verify(try Self.withoutRoot("valid-sha256"))
        #expect(verdict.outcome == .inconclusive)
        #expect(verdict.reasons.map(\.code) == [.chainIncomplete])
        #expect(verdict.verifiedReceipt == nil && verdict.receipt != nil)
    }

    /// The leaf and intermediate expired in 2034: at a later instant the partial path proves it, root or not.
    @Test func validityIsCheckedOnThePartialPath() throws {
        let bytes = try Self.withoutRoot("valid-sha256")
        let late = try #require(ReceiptDate(rfc3339: "2036-01-01T00:00:00Z"))
        let verdict = ReceiptVerifier().verify(bytes, validationTime: .fixed(late))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .chainExpired)
    }
}
