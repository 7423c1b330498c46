import Testing

@_spi(Fuzzing) @testable import BER
@testable import ReceiptModel

/// The payload's in-app records are collected first and decoded into an array of exactly their count: the first
/// error in reading order still wins, and a receipt packed with tiny records allocates its array once.
struct ReceiptPayloadDecodingTests {
    /// A length in DER (short or long form).
    static func length(_ count: Int) -> [UInt8] { DERWriter.lengthOctets(count) }

    /// An attribute SEQUENCE { type, version 1, OCTET STRING value } in DER, for a type of up to two octets.
    static func attribute(_ type: Int, _ value: [UInt8]) -> [UInt8] {
        let typeField: [UInt8] =
            type < 0x80 ? [0x02, 0x01, UInt8(type)] : [0x02, 0x02, UInt8(type >> 8), UInt8(type & 0xFF)]
        let body = typeField + [0x02, 0x01, 0x01, 0x04] + length(value.count) + value
        return [0x30] + length(body.count) + body
    }

    static func set(_ attributes: [[UInt8]]) -> [UInt8] {
        let body = attributes.flatMap { $0 }
        return [0x31] + length(body.count) + body
    }

    static func utf8(_ text: String) -> [UInt8] { [0x0C] + length(text.utf8.count) + Array(text.utf8) }

    /// The decoding error's code, or `nil` when the payload decodes.
    static func errorCode(_ payload: [UInt8]) -> ReceiptError.Code? {
        do {
            _ = try ReceiptPayload(berEncoded: payload[...])
            return nil
        } catch {
            return error.code
        }
    }

    /// An in-app record whose purchase date is no date (`receipt.invalid_date`), and a bundle identifier, which
    /// occurring twice is `receipt.duplicate_attribute`: two errors told apart by their codes.
    static let brokenRecord = attribute(17, set([attribute(1704, [0x16, 0x03] + Array("xyz".utf8))]))
    static let bundleID = attribute(2, utf8("org.example.app"))

    @Test func theBrokenRecordAndTheRepeatedAttributeFailEachOnTheirOwn() {
        #expect(Self.errorCode(Self.set([Self.brokenRecord])) == .invalidDate)
        #expect(Self.errorCode(Self.set([Self.bundleID, Self.bundleID])) == .duplicateAttribute)
    }

    @Test func aRecordBeforeABrokenAttributeReportsItsOwnErrorFirst() {
        #expect(Self.errorCode(Self.set([Self.brokenRecord, Self.bundleID, Self.bundleID])) == .invalidDate)
    }

    @Test func aBrokenAttributeBeforeABrokenRecordReportsItsErrorFirst() {
        #expect(Self.errorCode(Self.set([Self.bundleID, Self.bundleID, Self.brokenRecord])) == .duplicateAttribute)
    }

    @Test func aRecordBeforeMalformedBytesReportsItsOwnErrorFirst() {
        // The walk itself fails after the record (`receipt.malformed_encoding`): a SEQUENCE whose length runs past
        // the end of the SET.
        #expect(Self.errorCode(Self.set([Self.brokenRecord, [0x30, 0x05, 0x02, 0x01]])) == .invalidDate)
        #expect(Self.errorCode(Self.set([Self.bundleID, [0x30, 0x05, 0x02, 0x01]])) == .malformedEncoding)
    }

    @Test func recordsPackedTightlyAreDecodedIntoAnArrayOfTheirCount() throws {
        // 12 bytes each: far tighter than the 150 bytes the first reservation assumes, so an array grown as the
        // records came would end at 1.28 times their count (doubling from 160 for 2,000).
        let empty = Self.attribute(17, [0x31, 0x00])
        let payload = try ReceiptPayload(
            berEncoded: Self.set(Array(repeating: empty, count: 2_000) + [Self.bundleID])[...])
        #expect(payload.inAppPurchases.count == 2_000)
        #expect(payload.bundleID == "org.example.app")
        #expect(payload.inAppPurchases.capacity < 2_100, "capacity \(payload.inAppPurchases.capacity)")
    }

    @Test func oneBERAttributeDoesNotHandTheRestToTheGeneralReader() throws {
        // An indefinite-length record first, then 500 plain-DER ones: only the first is read the general way.
        let indefinite: [UInt8] = [0x30, 0x80, 0x02, 0x01, 0x11, 0x02, 0x01, 0x01, 0x04, 0x02, 0x31, 0x00, 0x00, 0x00]
        let plain = Self.attribute(17, [0x31, 0x00])
        let bytes = Self.set([indefinite] + Array(repeating: plain, count: 500))
        let (payload, headers) = try ParseMeter.measure { try ReceiptPayload(berEncoded: bytes[...]) }
        #expect(payload.inAppPurchases.count == 501)
        // The general reader parses four headers per attribute it reads, and the indefinite one's scan a few more;
        // the 500 plain ones read in place parse none (about 8 in all, against about 2,008 when the general reader
        // took over the rest of the SET).
        #expect(headers < 100, "\(headers) headers parsed")
    }
}
