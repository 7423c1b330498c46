import BER
import TestSupport
import Testing

@testable import ReceiptModel

/// The pointer-based fast path of the attribute walk must agree exactly with the general reader:
/// same attributes, same order, and the same error code for malformed bytes.
struct AttributeWalkerTests {
    /// The attributes a walk hands `seen`, or the reader's error.
    static func collected(_ walk: (inout [ReceiptAttribute]) throws -> Void) -> Result<[ReceiptAttribute], BERError> {
        var seen: [ReceiptAttribute] = []
        do {
            try walk(&seen)
            return .success(seen)
        } catch let error as BERError {
            return .failure(error)
        } catch {
            Issue.record("unexpected error \(error)")
            return .success([])
        }
    }

    static func walk(_ content: ArraySlice<UInt8>, fastPath: Bool) -> Result<[ReceiptAttribute], BERError> {
        collected { seen in
            try AttributeWalker.forEach(inSetContent: content, fastPath: fastPath) { seen.append($0) }
        }
    }

    /// The in-place walk, filtered by `wanted`, as attributes (each value copied out while it is valid).
    static func walkInPlace(_ content: ArraySlice<UInt8>, fastPath: Bool, wanted: (Int64) -> Bool)
        -> Result<[ReceiptAttribute], BERError>
    {
        collected { seen in
            try AttributeWalker.forEachUnsafe(inSetContent: content, fastPath: fastPath, where: wanted) {
                seen.append(ReceiptAttribute(type: $0, version: $1, value: Array($2)[...]))
            }
        }
    }

    /// The fast walk agrees with the general reader, and so does the in-place walk, filtered or not, on both paths.
    static func expectAgreement(_ content: ArraySlice<UInt8>, _ context: String) {
        let reference = walk(content, fastPath: false)
        switch (walk(content, fastPath: true), reference) {
        case let (.success(fast), .success(reference)): #expect(fast == reference, "\(context)")
        case let (.failure(fast), .failure(reference)): #expect(fast.code == reference.code, "\(context)")
        case let (fast, reference): Issue.record("\(context): fast \(fast) but reference \(reference)")
        }
        let odd: (Int64) -> Bool = { $0 % 2 != 0 }
        for fastPath in [true, false] {
            switch (walkInPlace(content, fastPath: fastPath, wanted: odd), reference) {
            case let (.success(inPlace), .success(reference)):
                #expect(inPlace == reference.filter { odd($0.type) }, "\(context), in place, fast path \(fastPath)")
            case let (.failure(inPlace), .failure(reference)):
                #expect(inPlace.code == reference.code, "\(context), in place, fast path \(fastPath)")
            case let (inPlace, reference):
                Issue.record("\(context): in place \(inPlace) but reference \(reference)")
            }
        }
    }

    /// An attribute SEQUENCE { type, version, OCTET STRING value } in DER.
    static func attribute(type: UInt8, value: [UInt8]) -> [UInt8] {
        let body: [UInt8] = [0x02, 0x01, type, 0x02, 0x01, 0x01, 0x04, UInt8(value.count)] + value
        return [0x30, UInt8(body.count)] + body
    }

    /// The same shape as ``attribute(type:value:)`` with an indefinite-length SEQUENCE: only the general reader reads
    /// it.
    static func indefiniteAttribute(type: UInt8) -> [UInt8] {
        [0x30, 0x80, 0x02, 0x01, type, 0x02, 0x01, 0x01, 0x04, 0x01, 0x07, 0x00, 0x00]
    }

    @Test func readsAnUnusualAttributeTheGeneralWayAndGoesOnInPlace() throws {
        let content =
            (Self.attribute(type: 2, value: [0x01]) + Self.indefiniteAttribute(type: 3)
            + Self.attribute(type: 4, value: [0x02]) + Self.attribute(type: 5, value: [0x03]))[...]
        var calls: [String] = []
        try AttributeWalker.walk(
            content, wanted: { _ in true }, fast: { type, _, _, _ in calls.append("fast \(type)") },
            general: { calls.append("general \($0.type)") })
        #expect(calls == ["fast 2", "general 3", "fast 4", "fast 5"])
    }

    @Test func mixedAttributesEndingInATruncatedOneAgreeWithTheGeneralReader() {
        let plain = Self.attribute(type: 2, value: [0x0C, 0x01, 0x41])
        let mixed = plain + Self.indefiniteAttribute(type: 3) + plain + Self.indefiniteAttribute(type: 5)
        Self.expectAgreement(mixed[...], "mixed")
        for cut in 1..<plain.count {
            Self.expectAgreement((mixed + plain.prefix(cut))[...], "mixed, then \(cut) bytes of a plain attribute")
        }
        let indefinite = Self.indefiniteAttribute(type: 7)
        for cut in 1..<indefinite.count {
            Self.expectAgreement((mixed + indefinite.prefix(cut))[...], "mixed, then \(cut) bytes of a BER one")
        }
    }

    @Test func anUnusualAttributeBetweenPlainOnesDecodesAlike() {
        let first = Self.attribute(type: 2, value: [0x0C, 0x01, 0x41])
        // The same shape with an indefinite-length SEQUENCE: only the general reader reads it.
        let indefinite: [UInt8] = [0x30, 0x80, 0x02, 0x01, 0x03, 0x02, 0x01, 0x01, 0x04, 0x01, 0x07, 0x00, 0x00]
        let last = Self.attribute(type: 4, value: [0x01, 0x02])
        let content = (first + indefinite + last)[...]
        guard case .success(let attributes) = Self.walk(content, fastPath: true) else {
            Issue.record("the walk failed")
            return
        }
        #expect(attributes.map(\.type) == [2, 3, 4])
        #expect(attributes.map { Array($0.value) } == [[0x0C, 0x01, 0x41], [0x07], [0x01, 0x02]])
        Self.expectAgreement(content, "mixed DER and BER")
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func agreesWithTheGeneralReaderOnRealAndMutatedPayloads() throws {
        var generator = SplitMix64(seed: 0xA77)
        for name in SharedTestData.receiptNames {
            let receipt = try AppReceipt(berEncoded: try SharedTestData.receiptBytes(name))
            let payload = Array(receipt.payload.encoded)
            Self.expectAgreement(payload[...], name)
            for purchase in receipt.payload.inAppPurchases.prefix(3) {
                Self.expectAgreement(purchase.encoded, "\(name) in-app")
            }
            for round in 0..<120 {
                var mutated = payload
                let index = Int(generator.next() % UInt64(mutated.count))
                mutated[index] ^= UInt8(1) << UInt8(generator.next() % 8)
                Self.expectAgreement(mutated[...], "\(name) flip \(round)")
                Self.expectAgreement(mutated[..<index], "\(name) cut at \(index)")
            }
        }
    }
}
