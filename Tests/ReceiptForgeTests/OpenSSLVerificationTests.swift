import Foundation
import ReceiptCrypto
import ReceiptForge
import ReceiptModel
import TestSupport
import Testing

/// An independent judge: OpenSSL's own CMS verifier, run as a separate process, agrees with the
/// fixtures' intended verdicts wherever it can judge them.
///
/// `openssl cms -verify` knows nothing of Apple's marker extensions, of "exactly one signer" or of
/// the payload's format, so for those fixtures it must *accept* them: the verdict there is the
/// project's own check, and the forgery is otherwise well formed.
@Suite(.enabled(if: OpenSSLTool.executable != nil, "openssl is not on PATH: OpenSSL cross-checks skipped"))
struct OpenSSLVerificationTests {

    /// Reasons OpenSSL cannot see: fixtures with them are well-formed CMS that it accepts.
    static let reasonsOpenSSLCannotSee: Set<String> = [
        "chain.leaf_marker_missing", "chain.intermediate_marker_missing", "signature.multiple_signers",
        "receipt.malformed",
    ]

    static let appReceiptFixtures: [String] = Fixtures.names.filter { !$0.hasPrefix("ios6-") }

    @Test(arguments: appReceiptFixtures)
    func opensslAgreesWithTheIntendedVerdict(name: String) throws {
        let request = try Fixtures.request(name)
        let expected = try #require(request.expected)
        let time = try #require(
            ReceiptDate(rfc3339: expected.validationTime ?? request.carriedReceipt?.creationDate ?? ""))
        let accepted = try Self.opensslVerifies(Fixtures.receiptBytes(name, request), at: time.secondsSince1970)
        let shouldAccept = expected.verdict == "valid" || Self.reasonsOpenSSLCannotSee.contains(expected.reason ?? "")
        #expect(accepted == shouldAccept, "openssl cms -verify \(accepted ? "accepted" : "rejected") \(name)")
    }

    /// The valid fixture is accepted only inside the leaf's validity: the time really is checked.
    @Test func opensslRejectsTheValidFixtureAfterTheLeafExpires() throws {
        let request = try Fixtures.request("valid-sha256")
        let bytes = try Fixtures.receiptBytes("valid-sha256", request)
        let inside = try #require(ReceiptDate(rfc3339: "2030-01-01T00:00:00Z"))
        let after = try #require(ReceiptDate(rfc3339: "2035-06-01T00:00:00Z"))
        #expect(try Self.opensslVerifies(bytes, at: inside.secondsSince1970))
        #expect(try !Self.opensslVerifies(bytes, at: after.secondsSince1970))
    }

    /// A freshly minted receipt with a flipped payload byte is rejected; the same receipt untouched passes.
    @Test func opensslRejectsAFreshlyTamperedReceipt() throws {
        let identity = try Fixtures.pki.identity(certificate: "test-leaf")
        let options = SignedDataOptions(
            digest: .sha1, signers: [SignerOptions(identity: identity)],
            certificates: [identity.certificate, try Fixtures.pki.certificate(named: "test-intermediate")])
        let description = ReceiptDescription(bundleID: "org.example.tamper", creationDate: "2025-01-01T00:00:00Z")
        let payload = description.payloadDER()
        var tampered = payload
        tampered[tampered.count - 1] ^= 0x01
        let time = try #require(ReceiptDate(rfc3339: "2025-01-01T00:00:00Z")).secondsSince1970
        #expect(try Self.opensslVerifies(ReceiptMinter.mint(payload: payload, options: options), at: time))
        #expect(
            try !Self.opensslVerifies(
                ReceiptMinter.mint(payload: payload, embeddedPayload: tampered, options: options),
                at: time))
    }

    /// Runs `openssl cms -verify -binary -inform DER -CAfile certs/test-root.pem -purpose any -attime T`.
    static func opensslVerifies(_ receipt: [UInt8], at secondsSince1970: Int64) throws -> Bool {
        let input = FileManager.default.temporaryDirectory
            .appendingPathComponent("forge-\(UUID().uuidString).receipt")
        try Data(receipt).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let status = try OpenSSLTool.run([
            "cms", "-verify", "-binary", "-inform", "DER", "-in", input.path, "-CAfile", Fixtures.testRoot.path,
            "-purpose", "any", "-attime", String(secondsSince1970), "-out", "/dev/null",
        ])
        return status == 0
    }
}
