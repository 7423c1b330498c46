import Foundation
import ReceiptCrypto
import ReceiptForge
import ReceiptModel
import Testing

/// Minted iOS 6 transaction receipts have Apple's shape, decode with the project's decoder, and
/// carry a signature that is good (valid fixture) or bad (tampered fixture) under the embedded certificate.
@Suite struct IOS6ReceiptTests {
    static func decoded(_ name: String) throws -> (IOS6TransactionReceipt, MintRequest) {
        let request = try Fixtures.request(name)
        let text = try [UInt8](Data(contentsOf: Fixtures.fileURL(name, request)))
        return (try IOS6TransactionReceipt(base64Encoded: text[...]), request)
    }

    static func signatureVerifies(_ receipt: IOS6TransactionReceipt) throws -> Bool {
        let certificate = try Certificate(derEncoded: receipt.signature.certificate[...])
        let digest = try DigestAlgorithm.sha1.hash(receipt.signedBytes[...])
        return try certificate.publicKey.verifyRSAPKCS1(
            signature: receipt.signature.signature[...], digest: digest, algorithm: .sha1)
    }

    @Test func validReceiptDecodesAndItsSignatureVerifies() throws {
        let (receipt, request) = try Self.decoded("ios6-valid")
        #expect(receipt.signature.version == 3)
        #expect(receipt.signature.signature.count == 256)
        #expect(
            receipt.signature.certificate == (try Fixtures.pki.certificate(named: "test-ios6-purchase-receipt").der))
        #expect(receipt.environment == "Sandbox")
        #expect(receipt.pod == "100")
        let entries = try #require(request.carriedPurchaseInfo)
        #expect(receipt.purchaseInfo.entries == Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) }))
        #expect(receipt.purchaseInfo.productID == "org.example.receiptforge.ios6.unlock")
        #expect(try Self.signatureVerifies(receipt))
    }

    @Test func tamperedPurchaseInfoNoLongerMatchesTheSignature() throws {
        let (receipt, _) = try Self.decoded("ios6-tampered-purchase-info")
        #expect(receipt.purchaseInfo.entries["quantity"] == "50")
        #expect(try !Self.signatureVerifies(receipt))
    }

    @Test func plistTextHasTheOldStyleShape() throws {
        let request = try Fixtures.request("ios6-valid")
        let text = String(decoding: try request.mint(pki: Fixtures.pki), as: UTF8.self)
        #expect(text.hasPrefix("{\n\t\"signature\" = \""))
        #expect(text.contains("\n\t\"purchase-info\" = \""))
        #expect(text.contains("\n\t\"environment\" = \"Sandbox\";\n"))
        #expect(text.hasSuffix("\t\"signing-status\" = \"0\";\n}\n"))
    }

    @Test func quotesInValuesAreEscaped() throws {
        let identity = try Fixtures.pki.identity(certificate: "test-ios6-purchase-receipt")
        let minted = try IOS6ReceiptMinter.mint(
            IOS6ReceiptDescription(purchaseInfo: [IOS6PlistEntry("product-id", #"a "quoted" \ id"#)]),
            identity: identity)
        let receipt = try IOS6TransactionReceipt(plistText: minted[...])
        #expect(receipt.purchaseInfo.productID == #"a "quoted" \ id"#)
    }
}
