import Foundation
import ReceiptModel
import TestSupport
import Testing

@_spi(Fuzzing) @testable import BER

/// Nesting that an attacker controls must not multiply the decoder's work (issue 10, class 4(b)): wherever
/// hostile nested indefinite-length BER sits in a receipt (a junk certificate, a segmented eContent, a
/// segmented attribute value), decoding parses each added element a bounded number of times. The work is
/// counted in parsed element headers (BER's debug-only `ParseMeter`), never timed.
struct NestedIndefiniteCostTests {
    /// The minted receipt whose outer structures all have indefinite lengths, so bytes can be inserted
    /// into them without fixing any length.
    static func indefiniteReceipt() throws -> [UInt8] {
        try SharedTestData.bytes(
            at: SharedTestData.packageRoot.appendingPathComponent(
                "fixtures/valid-ber-indefinite.receipt"))
    }

    /// The header parses of one decode, and the decoded receipt.
    static func decodeCost(_ bytes: [UInt8]) throws -> (receipt: AppReceipt, headers: Int) {
        let (receipt, headers) = try ParseMeter.measure { try AppReceipt(berEncoded: bytes) }
        return (receipt, headers)
    }

    /// The elements of SignedData the tests insert into: the certificates' SET and the eContent OCTET STRING.
    static func landmarks(_ bytes: [UInt8]) throws -> (certificates: BERElement, eContent: BERElement) {
        var top = BERReader(bytes[...])
        var contentInfo = try top.read(expecting: .sequence).children()
        _ = try contentInfo.read(expecting: .objectIdentifier)
        var explicit = try contentInfo.read(expecting: .contextSpecific(0, constructed: true)).children()
        var signedData = try explicit.read(expecting: .sequence).children()
        _ = try signedData.read(expecting: .integer)
        _ = try signedData.read(expecting: .set)
        var encapsulated = try signedData.read(expecting: .sequence).children()
        _ = try encapsulated.read(expecting: .objectIdentifier)
        var explicitContent = try encapsulated.read(expecting: .contextSpecific(0, constructed: true)).children()
        let eContent = try explicitContent.readAny()
        let certificates = try signedData.read(expecting: .contextSpecific(0, constructed: true))
        return (certificates, eContent)
    }

    /// `depth` nested indefinite SEQUENCEs around `leaves` NULLs.
    static func nestedJunk(depth: Int, leaves: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: depth).flatMap { _ in [0x30, 0x80] }
            + [UInt8](repeating: 0, count: leaves).flatMap { _ in [0x05, 0x00] }
            + [UInt8](repeating: 0, count: depth * 2)
    }

    /// `bytes` as a constructed, indefinite-length OCTET STRING nested `depth` deep around one-octet segments.
    static func nestedSegments(_ bytes: ArraySlice<UInt8>, depth: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: depth).flatMap { _ in [0x24, 0x80] }
            + bytes.flatMap { [0x04, 0x01, $0] }
            + [UInt8](repeating: 0, count: depth * 2)
    }

    @Test func aNestedIndefiniteCertificateIsScannedOnceWhateverTheDecoderReadsAroundIt() throws {
        let original = try Self.indefiniteReceipt()
        let certificates = try Self.landmarks(original).certificates
        try #require(certificates.isIndefiniteLength, "the fixture's certificates must have an indefinite length")
        let baseline = try Self.decodeCost(original).headers
        var added: [Int] = []
        for leaves in [2_000, 4_000] {
            // 27 levels of indefinite SEQUENCEs under ContentInfo, [0], SignedData and certificates.
            var bytes = original
            bytes.insert(contentsOf: Self.nestedJunk(depth: 27, leaves: leaves), at: certificates.content.startIndex)
            let (receipt, headers) = try Self.decodeCost(bytes)
            #expect(receipt.signedData.certificates.count == 4)
            #expect(receipt.payload.bundleID == (try Self.decodeCost(original).receipt.payload.bundleID))
            let elements = 27 + leaves
            added.append(headers - baseline)
            // Once by the scan of the outermost ContentInfo, once more at most for the decoder's own reads.
            #expect(headers - baseline <= 2 * elements, "\(headers - baseline) header parses for \(elements) elements")
        }
        #expect(added[1] <= 2 * added[0] + 8, "doubling the junk: \(added[0]) then \(added[1]) header parses")
    }

    @Test func aDeeplySegmentedEContentIsJoinedInLinearWork() throws {
        let original = try Self.indefiniteReceipt()
        let eContent = try Self.landmarks(original).eContent
        let expected = try Self.decodeCost(original)
        // 25 levels of constructed OCTET STRING under the 5 of SignedData, one segment per payload octet.
        var bytes = original
        bytes.replaceSubrange(
            eContent.encoded.indices, with: Self.nestedSegments(eContent.content, depth: 25))
        let (receipt, headers) = try Self.decodeCost(bytes)
        #expect(receipt.signedData.eContent.elementsEqual(expected.receipt.signedData.eContent))
        #expect(receipt.payload.inAppPurchases.count == expected.receipt.payload.inAppPurchases.count)
        let segments = eContent.content.count + 25
        #expect(segments < BERLimits.default.maximumStringSegments)
        #expect(
            headers - expected.headers <= 2 * segments,
            "\(headers - expected.headers) header parses for \(segments) segments")
    }

    @Test func aDeeplySegmentedAttributeValueIsJoinedInLinearWork() throws {
        let original = try Self.indefiniteReceipt()
        let eContent = try Self.landmarks(original).eContent
        let expected = try Self.decodeCost(original)
        // An undocumented attribute (type 9999) whose value is 3,000 one-octet segments nested 25 deep, added
        // to the payload SET (rewritten with an indefinite length so nothing else changes).
        var payloadReader = BERReader(eContent.content)
        let payloadSet = try payloadReader.read(expecting: .set)
        let value = [UInt8](repeating: 0x41, count: 3_000)
        let attribute: [UInt8] =
            [0x30, 0x80, 0x02, 0x02, 0x27, 0x0F, 0x02, 0x01, 0x01]
            + Self.nestedSegments(value[...], depth: 25) + [0x00, 0x00]
        let payload: [UInt8] = [0x31, 0x80] + payloadSet.content + attribute + [0x00, 0x00]
        var bytes = original
        bytes.replaceSubrange(
            eContent.encoded.indices,
            with: [
                0x24, 0x80, 0x04, 0x83, UInt8(payload.count >> 16), UInt8((payload.count >> 8) & 0xFF),
                UInt8(payload.count & 0xFF),
            ] + payload + [0x00, 0x00])
        let (receipt, headers) = try Self.decodeCost(bytes)
        let unknown = receipt.payload.unknownAttributes.filter { $0.type == 9999 }
        #expect(unknown.count == 1 && unknown.first?.value.elementsEqual(value) == true)
        #expect(receipt.payload.inAppPurchases.count == expected.receipt.payload.inAppPurchases.count)
        let segments = value.count + 25
        // The payload's SET is scanned, the attribute scanned again by the attribute walker's reader, then
        // walked: three parses per segment, plus a few for the rewritten envelope.
        #expect(
            headers - expected.headers <= 3 * segments + 64,
            "\(headers - expected.headers) header parses for \(segments) segments")
    }
}
