import Foundation
import ReceiptForge
import ReceiptModel
import Testing

/// The committed fixtures are exactly what their committed requests mint, and say what they claim.
@Suite struct FixtureCatalogueTests {
    static let reasonCodes: Set<String> = [
        "signature.mismatch", "signature.message_digest_mismatch", "signature.no_signer",
        "signature.multiple_signers", "signature.signer_certificate_missing", "chain.untrusted_root",
        "chain.leaf_marker_missing", "chain.intermediate_marker_missing", "chain.not_a_ca", "chain.expired",
        "chain.invalid_signature", "chain.incomplete", "receipt.malformed", "ios6.signature_mismatch",
        "ios6.chain_incomplete",
    ]

    @Test func catalogueIsPresent() {
        #expect(Fixtures.names.count >= 28)
    }

    /// Deterministic minting: re-minting every request in-process gives the committed bytes, so the
    /// fixtures can always be regenerated and nobody can hand-edit one unnoticed.
    @Test(arguments: Fixtures.names)
    func remintingReproducesTheCommittedFixture(name: String) throws {
        let request = try Fixtures.request(name)
        let committed = try [UInt8](Data(contentsOf: Fixtures.fileURL(name, request)))
        #expect(try request.fileContents(pki: Fixtures.pki) == committed)
        let committedExpectation = try Data(
            contentsOf: Fixtures.directory.appendingPathComponent("\(name).expected.json"))
        #expect(
            try request.expectationJSON(fileName: Fixtures.fileURL(name, request).lastPathComponent)
                == committedExpectation)
    }

    @Test(arguments: Fixtures.names)
    func expectationNamesAVerdictARootAndATime(name: String) throws {
        let expected = try Fixtures.expectation(name)
        let verdict = try #require(expected["verdict"] as? String)
        #expect(["valid", "invalid", "inconclusive"].contains(verdict))
        if verdict == "valid" {
            #expect(expected["reason"] == nil)
            #expect(name.hasPrefix("valid-"))
        } else {
            let reason = try #require(expected["reason"] as? String)
            #expect(Self.reasonCodes.contains(reason))
        }
        let root = try #require(expected["root"] as? String)
        #expect(
            FileManager.default.fileExists(
                atPath: Fixtures.directory.deletingLastPathComponent()
                    .appendingPathComponent(root).path))
        let time = try #require(expected["validationTime"] as? String)
        #expect(ReceiptDate(rfc3339: time) != nil)
    }

    @Test func catalogueCoversEveryReasonCode() throws {
        let reasons = Set(try Fixtures.names.compactMap { try Fixtures.expectation($0)["reason"] as? String })
        #expect(reasons == Self.reasonCodes)
    }

    /// The committed bytes decode to the content their request describes (the carried content for
    /// tampered ones), including the large fixture's generated purchases.
    @Test(arguments: Fixtures.names)
    func appReceiptFixturesDecodeToTheirDescription(name: String) throws {
        let request = try Fixtures.request(name)
        guard let described = request.carriedReceipt else { return }  // iOS 6: see IOS6ReceiptTests
        let bytes = try Fixtures.receiptBytes(name, request)
        if request.expected?.reason == "receipt.malformed" {
            #expect(throws: ReceiptError.self) { _ = try AppReceipt(berEncoded: bytes) }
            return
        }
        let receipt = try AppReceipt(berEncoded: bytes)
        DecodedReceiptComparison.expectMatches(receipt.payload, described)
    }

    @Test func largeFixtureHoldsMoreThanAThousandPurchases() throws {
        let request = try Fixtures.request("valid-large-1200-purchases")
        let receipt = try AppReceipt(berEncoded: Fixtures.receiptBytes("valid-large-1200-purchases", request))
        #expect(receipt.payload.inAppPurchases.count == 1200)
        #expect(try Fixtures.expectation("valid-large-1200-purchases")["inAppPurchaseCount"] as? Int == 1200)
    }
}
