@_spi(Fuzzing) import BER
import Foundation
import ReceiptModel
import TestSupport
import Testing

/// Decodes every real Apple receipt in ../shared and compares each attribute with what an
/// independent decoder (asn1crypto) read from the same file.
@Suite(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
struct RealReceiptDecodingTests {
    static let names = SharedTestData.receiptNames

    @Test(arguments: names)
    func decodesEveryAttributeAsTheIndependentDecoderDid(name: String) throws {
        let bytes = try SharedTestData.receiptBytes(name)
        let expected = try SharedTestData.decodedJSON(name)
        let receipt = try AppReceipt(berEncoded: bytes)

        #expect(receipt.signedData.eContent.count == expected["payload_size"] as? Int)
        #expect(receipt.signedData.certificates.count == (expected["certificates"] as? [Any])?.count)
        #expect(receipt.signedData.signerInfos.count == (expected["signer_infos"] as? [Any])?.count)

        let expectedTop = try #require(expected["attributes"] as? [[String: Any]])
        try Self.compare(receipt.payload.attributes, with: expectedTop, in: "\(name) top level")

        let expectedInApp = try #require(expected["in_app"] as? [[String: Any]])
        #expect(receipt.payload.inAppPurchases.count == expectedInApp.count)
        for (index, (purchase, expectedPurchase)) in zip(receipt.payload.inAppPurchases, expectedInApp).enumerated() {
            let attributes = try #require(expectedPurchase["_attributes"] as? [[String: Any]])
            try Self.compare(purchase.attributes, with: attributes, in: "\(name) in_app[\(index)]")
            try Self.checkTypedFields(of: purchase, against: expectedPurchase, in: "\(name) in_app[\(index)]")
        }
        let expectedReceipt = try #require(expected["receipt"] as? [String: Any])
        try Self.checkTypedFields(of: receipt.payload, against: expectedReceipt, in: name)
    }

    @Test(arguments: names)
    func keepsEveryUndocumentedAttributeRaw(name: String) throws {
        let receipt = try AppReceipt(berEncoded: try SharedTestData.receiptBytes(name))
        let expected = try #require(try SharedTestData.decodedJSON(name)["attributes"] as? [[String: Any]])
        let documented: Set<Int> = [0, 1, 2, 3, 4, 5, 10, 12, 15, 16, 17, 18, 19, 21]
        let expectedUnknown = expected.compactMap { $0["type"] as? Int }.filter { !documented.contains($0) }
        #expect(receipt.payload.unknownAttributes.map { Int($0.type) } == expectedUnknown)
    }

    @Test func decodesTheLargestReceiptWithAllItsPurchases() throws {
        let receipt = try AppReceipt(
            berEncoded: try SharedTestData.receiptBytes("tpi-nutcall-alert-sandbox-2020-187iap"))
        #expect(receipt.payload.inAppPurchases.count == 187)
        #expect(receipt.payload.inAppPurchases.allSatisfy { $0.productID != nil && $0.purchaseDate != nil })
    }

    // MARK: - Comparison helpers

    /// Checks type, version and the inner value of each attribute against the independent decoder.
    static func compare(_ actual: [ReceiptAttribute], with expected: [[String: Any]], in context: String) throws {
        #expect(actual.count == expected.count, "\(context): attribute count")
        for (attribute, reference) in zip(actual, expected) {
            let where_ = "\(context) type \(attribute.type)"
            #expect(attribute.type == Int64(reference["type"] as? Int ?? -1), "\(where_)")
            #expect(attribute.version == Int64(reference["version"] as? Int ?? -1), "\(where_)")
            switch reference["asn1"] as? String {
            case "UTF8String", "IA5String":
                let tag: UInt8 = reference["asn1"] as? String == "UTF8String" ? 0x0C : 0x16
                var reader = BERReader(attribute.value)
                let element = try reader.readAny()
                #expect(element.encoded.first == tag, "\(where_)")
                #expect(String(decoding: element.content, as: UTF8.self) == reference["value"] as? String, "\(where_)")
            case "Integer":
                var reader = BERReader(attribute.value)
                let value = try reader.read(expecting: .integer).integerValue()
                #expect(value == Int64(reference["value"] as? Int ?? Int.min), "\(where_)")
            case nil where reference["hex"] != nil:
                #expect(hex(attribute.value) == reference["hex"] as? String, "\(where_)")
            default:
                // Type 17 is checked record by record.
                #expect(attribute.type == 17, "\(where_): unexpected reference kind")
            }
        }
    }

    static func checkTypedFields(of payload: ReceiptPayload, against reference: [String: Any], in context: String)
        throws
    {
        #expect(payload.receiptType == nonEmpty(reference["receipt_type"]), "\(context)")
        #expect(payload.appItemID == int64(reference["app_item_id"]), "\(context)")
        #expect(payload.bundleID == nonEmpty(reference["bundle_id"]), "\(context)")
        #expect(payload.applicationVersion == nonEmpty(reference["application_version"]), "\(context)")
        #expect(payload.opaqueValue.map(hex) == reference["opaque_value"] as? String, "\(context)")
        #expect(payload.sha1Hash.map(hex) == reference["sha1_hash"] as? String, "\(context)")
        #expect(payload.ageRating == nonEmpty(reference["age_rating"]), "\(context)")
        #expect(payload.creationDate == date(reference["receipt_creation_date"]), "\(context)")
        #expect(payload.downloadID == int64(reference["type_15"]), "\(context)")
        #expect(payload.versionExternalIdentifier == int64(reference["type_16"]), "\(context)")
        #expect(payload.originalPurchaseDate == date(reference["original_purchase_date"]), "\(context)")
        #expect(payload.originalApplicationVersion == nonEmpty(reference["original_application_version"]), "\(context)")
        #expect(payload.expirationDate == date(reference["expiration_date"]), "\(context)")
    }

    static func checkTypedFields(of purchase: InAppPurchase, against reference: [String: Any], in context: String)
        throws
    {
        #expect(purchase.quantity == int64(reference["quantity"]), "\(context)")
        #expect(purchase.productID == nonEmpty(reference["product_id"]), "\(context)")
        #expect(purchase.transactionID == nonEmpty(reference["transaction_id"]), "\(context)")
        #expect(purchase.originalTransactionID == nonEmpty(reference["original_transaction_id"]), "\(context)")
        #expect(purchase.purchaseDate == date(reference["purchase_date"]), "\(context)")
        #expect(purchase.originalPurchaseDate == date(reference["original_purchase_date"]), "\(context)")
        #expect(purchase.productType?.rawValue == int64(reference["type_1707"]), "\(context)")
        #expect(purchase.expiresDate == date(reference["expires_date"]), "\(context)")
        #expect(purchase.webOrderLineItemID == int64(reference["web_order_line_item_id"]), "\(context)")
        #expect(purchase.cancellationDate == date(reference["cancellation_date"]), "\(context)")
        #expect(purchase.isTrialPeriod == int64(reference["is_trial_period"]).map { $0 != 0 }, "\(context)")
        #expect(
            purchase.isInIntroOfferPeriod == int64(reference["is_in_intro_offer_period"]).map { $0 != 0 }, "\(context)")
        #expect(purchase.promotionalOfferID == nonEmpty(reference["promotional_offer_id"]), "\(context)")
    }
}

func hex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

private func nonEmpty(_ value: Any?) -> String? {
    guard let text = value as? String, !text.isEmpty else { return nil }
    return text
}

private func int64(_ value: Any?) -> Int64? {
    (value as? Int).map(Int64.init)
}

/// The reference writes dates as RFC 3339 text; parse them with Foundation, independently of ours.
private func date(_ value: Any?) -> ReceiptDate? {
    guard let text = nonEmpty(value) else { return nil }
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let parsed =
        formatter.date(from: text)
        ?? {
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.date(from: text)
        }()
    guard let parsed else { return ReceiptDate(clampingMillisecondsSince1970: Int64.min) }
    return ReceiptDate(clampingMillisecondsSince1970: Int64((parsed.timeIntervalSince1970 * 1000).rounded()))
}
