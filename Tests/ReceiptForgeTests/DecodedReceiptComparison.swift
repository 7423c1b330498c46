@_spi(Fuzzing) import BER
import ReceiptForge
import ReceiptModel
import Testing

/// Checks that a decoded payload says exactly what a description said, field by field.
///
/// Conventions of the format are applied, not papered over: an empty string reads back as absent,
/// and a date compares as the instant it names; its exact text is checked separately from the
/// attribute's raw value, so a decoder that rewrites dates is still caught.
enum DecodedReceiptComparison {
    static func expectMatches(
        _ payload: ReceiptPayload, _ description: ReceiptDescription, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(payload.receiptType == nonEmpty(description.receiptType), sourceLocation: sourceLocation)
        #expect(payload.appItemID == description.appItemID, sourceLocation: sourceLocation)
        #expect(payload.bundleID == nonEmpty(description.bundleID), sourceLocation: sourceLocation)
        #expect(payload.applicationVersion == nonEmpty(description.applicationVersion), sourceLocation: sourceLocation)
        #expect(payload.opaqueValue.map(Array.init) == description.opaqueValue?.bytes, sourceLocation: sourceLocation)
        #expect(payload.sha1Hash.map(Array.init) == description.sha1Hash?.bytes, sourceLocation: sourceLocation)
        #expect(payload.ageRating == nonEmpty(description.ageRating), sourceLocation: sourceLocation)
        #expect(payload.creationDate == date(description.creationDate), sourceLocation: sourceLocation)
        #expect(payload.downloadID == description.downloadID, sourceLocation: sourceLocation)
        #expect(
            payload.versionExternalIdentifier == description.versionExternalIdentifier, sourceLocation: sourceLocation)
        #expect(payload.originalPurchaseDate == date(description.originalPurchaseDate), sourceLocation: sourceLocation)
        #expect(
            payload.originalApplicationVersion == nonEmpty(description.originalApplicationVersion),
            sourceLocation: sourceLocation)
        #expect(payload.expirationDate == date(description.expirationDate), sourceLocation: sourceLocation)
        expectSameDateTexts(
            payload.attributes,
            [(12, description.creationDate), (18, description.originalPurchaseDate), (21, description.expirationDate)],
            sourceLocation: sourceLocation)
        #expect(
            rawSet(payload.unknownAttributes) == rawSet(description.extraAttributes), sourceLocation: sourceLocation)

        #expect(payload.inAppPurchases.count == description.inAppPurchases.count, sourceLocation: sourceLocation)
        // Purchases come back in DER SET OF order, not description order: pair each decoded one with
        // the description whose encoding it was read from, then compare the decoded fields.
        var unmatched: [[UInt8]: [InAppPurchaseDescription]] = [:]
        for purchase in description.inAppPurchases {
            var reader = BERReader(purchase.payloadDER()[...])
            guard let set = try? reader.read(expecting: .set) else {
                Issue.record("a described purchase does not encode as a SET", sourceLocation: sourceLocation)
                continue
            }
            unmatched[Array(set.content), default: []].append(purchase)
        }
        for purchase in payload.inAppPurchases {
            guard let expected = unmatched[Array(purchase.encoded)]?.popLast() else {
                Issue.record("a decoded purchase matches no described purchase", sourceLocation: sourceLocation)
                continue
            }
            expectMatches(purchase, expected, sourceLocation: sourceLocation)
        }
    }

    static func expectMatches(
        _ purchase: InAppPurchase, _ description: InAppPurchaseDescription, sourceLocation: SourceLocation
    ) {
        #expect(purchase.quantity == description.quantity, sourceLocation: sourceLocation)
        #expect(purchase.productID == nonEmpty(description.productID), sourceLocation: sourceLocation)
        #expect(purchase.transactionID == nonEmpty(description.transactionID), sourceLocation: sourceLocation)
        #expect(purchase.purchaseDate == date(description.purchaseDate), sourceLocation: sourceLocation)
        #expect(
            purchase.originalTransactionID == nonEmpty(description.originalTransactionID),
            sourceLocation: sourceLocation)
        #expect(
            purchase.originalPurchaseDate == date(description.originalPurchaseDate), sourceLocation: sourceLocation)
        #expect(purchase.productType?.rawValue == description.productType, sourceLocation: sourceLocation)
        #expect(purchase.expiresDate == date(description.expiresDate), sourceLocation: sourceLocation)
        #expect(purchase.webOrderLineItemID == description.webOrderLineItemID, sourceLocation: sourceLocation)
        #expect(purchase.cancellationDate == date(description.cancellationDate), sourceLocation: sourceLocation)
        #expect(purchase.isTrialPeriod == description.isTrialPeriod, sourceLocation: sourceLocation)
        #expect(purchase.isInIntroOfferPeriod == description.isInIntroOfferPeriod, sourceLocation: sourceLocation)
        #expect(purchase.promotionalOfferID == nonEmpty(description.promotionalOfferID), sourceLocation: sourceLocation)
        expectSameDateTexts(
            purchase.attributes,
            [
                (1704, description.purchaseDate), (1706, description.originalPurchaseDate),
                (1708, description.expiresDate), (1712, description.cancellationDate),
            ],
            sourceLocation: sourceLocation)
        #expect(
            rawSet(purchase.unknownAttributes) == rawSet(description.extraAttributes), sourceLocation: sourceLocation)
    }

    /// The attribute of each type holds an IA5String with exactly the described text.
    private static func expectSameDateTexts(
        _ attributes: [ReceiptAttribute], _ expected: [(Int64, String?)], sourceLocation: SourceLocation
    ) {
        for (type, text) in expected {
            let found = attributes.filter { $0.type == type }
            guard let text else {
                #expect(found.isEmpty, "attribute \(type) should be absent", sourceLocation: sourceLocation)
                continue
            }
            var reader = BERReader(found.first?.value ?? [])
            let inner = try? reader.read(expecting: .ia5String)
            #expect(found.count == 1, "attribute \(type) should appear once", sourceLocation: sourceLocation)
            #expect(inner.map { Array($0.content) } == Array(text.utf8), sourceLocation: sourceLocation)
        }
    }

    private struct Raw: Hashable {
        let type: Int64
        let version: Int64
        let value: [UInt8]
    }

    private static func rawSet(_ attributes: [ReceiptAttribute]) -> [Raw: Int] {
        attributes.reduce(into: [:]) {
            $0[Raw(type: $1.type, version: $1.version, value: Array($1.value)), default: 0] += 1
        }
    }

    private static func rawSet(_ attributes: [RawAttributeDescription]) -> [Raw: Int] {
        attributes.reduce(into: [:]) {
            $0[Raw(type: $1.type, version: $1.version, value: $1.value.bytes), default: 0] += 1
        }
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    private static func date(_ text: String?) -> ReceiptDate? {
        guard let text, !text.isEmpty else { return nil }
        return ReceiptDate(rfc3339: text)
    }
}
