import BER
import TestSupport
import Testing

@testable import ReceiptModel

/// A purchase's documented fields read in place (the shape Apple writes, kept as ranges of the record) must be
/// exactly what the general reading gives: on real receipts, on mutated records, and for the shapes that only the
/// general reading takes (segmented strings, long lengths), where the in-place reading hands over.
struct InAppPurchaseDecodingTests {
    /// Every documented field, as text, so two decodings compare field by field.
    static func fields(_ purchase: InAppPurchase) -> [String] {
        func text(_ bytes: ArraySlice<UInt8>?) -> String { bytes.map { "\(Array($0))" } ?? "absent" }
        func text(_ value: (some Any)?) -> String { value.map { "\($0)" } ?? "absent" }
        return [
            text(purchase.quantity), text(purchase.productIDBytes), text(purchase.transactionIDBytes),
            text(purchase.purchaseDate), text(purchase.originalTransactionIDBytes), text(purchase.originalPurchaseDate),
            text(purchase.productType), text(purchase.expiresDate), text(purchase.webOrderLineItemID),
            text(purchase.cancellationDate), text(purchase.isTrialPeriod), text(purchase.isInIntroOfferPeriod),
            text(purchase.promotionalOfferIDBytes),
        ]
    }

    /// The fields, or the error's description.
    static func decode(_ value: ArraySlice<UInt8>, fastPath: Bool) -> (fields: [String]?, error: String?) {
        do {
            return (fields(try InAppPurchase(attributeValue: value, fastPath: fastPath)), nil)
        } catch {
            return (nil, "\(error)")
        }
    }

    static func expectAgreement(_ value: ArraySlice<UInt8>, _ context: String) {
        let inPlace = decode(value, fastPath: true)
        let reference = decode(value, fastPath: false)
        #expect(inPlace.fields == reference.fields && inPlace.error == reference.error, "\(context)")
    }

    /// An in-app attribute SEQUENCE { type (two octets), version 1, OCTET STRING value } in DER.
    static func attribute(_ type: Int, _ value: [UInt8]) -> [UInt8] {
        let body: [UInt8] =
            [0x02, 0x02, UInt8(type >> 8), UInt8(type & 0xFF), 0x02, 0x01, 0x01, 0x04, UInt8(value.count)] + value
        return [0x30, UInt8(body.count)] + body
    }

    static func set(_ attributes: [[UInt8]]) -> [UInt8] {
        let body = attributes.flatMap { $0 }
        return [0x31, 0x81, UInt8(body.count)] + body
    }

    static func utf8(_ text: String) -> [UInt8] { [0x0C, UInt8(text.utf8.count)] + Array(text.utf8) }

    @Test func shapesOnlyTheGeneralReadingTakesDecodeAlikeAndKeepTheirBytes() throws {
        // A segmented (constructed, indefinite) UTF8String "AB", a string with a long-form length, an empty date.
        let segmented: [UInt8] = [0x2C, 0x80, 0x0C, 0x01, 0x41, 0x0C, 0x01, 0x42, 0x00, 0x00]
        let longForm: [UInt8] = [0x0C, 0x81, 0x03] + Array("100".utf8)
        let value = Self.set([
            Self.attribute(1701, [0x02, 0x01, 0x01]),
            Self.attribute(1702, segmented),
            Self.attribute(1703, longForm),
            Self.attribute(1704, Self.utf8("2024-05-06T07:08:09Z")),
            Self.attribute(1712, [0x16, 0x00]),
            Self.attribute(1713, [0x02, 0x01, 0x00]),
        ])[...]
        let purchase = try InAppPurchase(attributeValue: value)
        #expect(purchase.productID == "AB")
        #expect(purchase.transactionID == "100")
        #expect(purchase.quantity == 1)
        #expect(purchase.purchaseDate == ReceiptDate(rfc3339: "2024-05-06T07:08:09Z"))
        #expect(purchase.cancellationDate == nil)
        #expect(purchase.isTrialPeriod == false)
        Self.expectAgreement(value, "segmented and long-form strings")
    }

    @Test func valuesTheInPlaceReadingRefusesFailAsTheGeneralReadingSays() {
        let cases: [(String, [UInt8])] = [
            ("a date that does not parse", Self.attribute(1704, Self.utf8("yesterday"))),
            ("a nine-octet quantity", Self.attribute(1701, [0x02, 0x09] + [UInt8](repeating: 1, count: 9))),
            ("a boolean of 2", Self.attribute(1713, [0x02, 0x01, 0x02])),
            ("an INTEGER where a string goes", Self.attribute(1702, [0x02, 0x01, 0x05])),
            ("a string where an INTEGER goes", Self.attribute(1711, Self.utf8("5"))),
            ("a value longer than its content", Self.attribute(1703, [0x0C, 0x05, 0x41])),
        ]
        for (name, attribute) in cases {
            let value = Self.set([attribute])[...]
            guard Self.decode(value, fastPath: true).error != nil else {
                Issue.record("\(name) decoded")
                continue
            }
            Self.expectAgreement(value, name)
        }
    }

    /// The record's SET is read in place only when it is a SET of definite length filling the value; every other
    /// outer shape decodes, or fails, as the general reading says.
    @Test func outerShapesDecodeOrFailAsTheGeneralReadingSays() throws {
        let body = Self.attribute(1702, Self.utf8("pro")) + Self.attribute(1701, [0x02, 0x01, 0x02])
        let shortForm: [UInt8] = [0x31, UInt8(body.count)] + body
        let cases: [(String, [UInt8], Bool)] = [
            ("short-form length", shortForm, true),
            ("long-form length", [0x31, 0x81, UInt8(body.count)] + body, true),
            ("a two-octet length with a leading zero", [0x31, 0x82, 0x00, UInt8(body.count)] + body, true),
            ("a three-octet length", [0x31, 0x83, 0x00, 0x00, UInt8(body.count)] + body, true),
            ("a four-octet length, past what is read in place", [0x31, 0x84, 0, 0, 0, UInt8(body.count)] + body, true),
            ("an indefinite length", [0x31, 0x80] + body + [0x00, 0x00], true),
            ("an empty SET", [0x31, 0x00], true),
            ("a length of 0xFF", [0x31, 0xFF] + body, false),
            ("the SET's tag in the high-number form", [0x3F, 0x11, UInt8(body.count)] + body, true),
            ("a byte after the SET", shortForm + [0x00], false),
            ("a SET shorter than its length", Array(shortForm.dropLast()), false),
            ("a SEQUENCE", [0x30, UInt8(body.count)] + body, false),
            ("a primitive SET tag", [0x11, UInt8(body.count)] + body, false),
            ("a lone tag", [0x31], false),
            ("nothing", [], false),
        ]
        for (name, value, decodes) in cases {
            let inPlace = Self.decode(value[...], fastPath: true)
            #expect((inPlace.fields != nil) == decodes, "\(name): \(inPlace.error ?? "decoded")")
            if decodes, !name.hasPrefix("an empty") {
                #expect(inPlace.fields?[1] == "\(Array("pro".utf8))", "\(name)")
            }
            Self.expectAgreement(value[...], name)
            // The same value as a slice of a larger array, not starting at index 0.
            let padded = [0xAA, 0xBB] + value
            Self.expectAgreement(padded[2...], "\(name), offset")
            #expect(Self.decode(padded[2...], fastPath: true).fields == inPlace.fields, "\(name), offset")
        }
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func readsRealAndMutatedPurchasesAsTheGeneralReadingDoes() throws {
        var generator = SplitMix64(seed: 0x1A9)
        var compared = 0
        for name in SharedTestData.receiptNames {
            let receipt = try AppReceipt(berEncoded: try SharedTestData.receiptBytes(name))
            let values = receipt.payload.attributes.filter { $0.type == ReceiptPayload.AttributeType.inAppPurchase }
            for value in values.prefix(6).map(\.value) {
                Self.expectAgreement(value, "\(name) in-app")
                compared += 1
                for round in 0..<40 {
                    var mutated = Array(value)
                    let index = Int(generator.next() % UInt64(mutated.count))
                    mutated[index] ^= UInt8(1) << UInt8(generator.next() % 8)
                    Self.expectAgreement(mutated[...], "\(name) flip \(round) at \(index)")
                }
            }
        }
        #expect(compared > 0, "no real receipt has in-app purchases")
    }
}
