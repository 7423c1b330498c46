import BER
import Foundation
import ReceiptModel
import TestSupport
import Testing

/// Hostile bytes must only ever produce a typed error or, where they still form a receipt, a
/// decode: never a trap, a hang or unbounded memory. The time limit turns a hang into a failure.
@Suite(.timeLimit(.minutes(2)))
struct HostileInputTests {
    @Test func rejectsEmptyInput() {
        #expect(throws: ReceiptError(.emptyInput, "")) { try AppReceipt(berEncoded: [UInt8]()) }
    }

    @Test func rejectsInputOverTheSizeLimit() {
        let bytes = [UInt8](repeating: 0x30, count: AppReceipt.maximumSize + 1)
        #expect(throws: ReceiptError(.tooLarge, "")) { try AppReceipt(berEncoded: bytes) }
    }

    @Test func rejectsDERThatIsNotAReceipt() {
        // SEQUENCE { OID 1.2.840.113549.1.7.1 (data), [0] { OCTET STRING } }: ContentInfo, not SignedData.
        let data: [UInt8] = [
            0x30, 0x10, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01,
            0xA0, 0x03, 0x04, 0x01, 0x00,
        ]
        #expect(throws: ReceiptError(.notSignedData, "")) { try AppReceipt(berEncoded: data) }
        // A bare INTEGER.
        #expect(throws: ReceiptError(.malformedEncoding, "")) { try AppReceipt(berEncoded: [0x02, 0x01, 0x00]) }
    }

    /// SignedData whose encapsulated content is not `data` (RFC 5652 §5.2): a receipt is always `data`.
    @Test func rejectsEncapsulatedContentThatIsNotData() throws {
        let file = SharedTestData.packageRoot.appendingPathComponent("fixtures/valid-sha256.receipt")
        var bytes = try SharedTestData.bytes(at: file)
        #expect(throws: Never.self) { try AppReceipt(berEncoded: bytes) }
        // 1.2.840.113549.1.7.1 (id-data); the outer ContentInfo is …7.2, so the first id-data is eContentType.
        let idData: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: idData) })
        bytes[start + idData.count - 1] = 0x03  // id-envelopedData
        #expect(throws: ReceiptError(.unsupportedContentType, "")) { try AppReceipt(berEncoded: bytes) }
    }

    @Test func rejectsTenThousandDeepNesting() {
        let depth = 10_000
        let bytes =
            [UInt8](repeating: 0x30, count: depth).flatMap { [$0, 0x80] } + [UInt8](repeating: 0, count: depth * 2)
        let error = #expect(throws: ReceiptError.self) { try AppReceipt(berEncoded: bytes) }
        #expect(error?.underlying?.code == .depthExceeded)
    }

    @Test(
        .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage),
        arguments: ["rc-sampleapp-sandbox-2020", "tpi-cyclemaps-xcode-2020"])
    func everyTruncationThrowsATypedError(name: String) throws {
        let bytes = try SharedTestData.receiptBytes(name)
        for length in 0..<bytes.count {
            #expect(throws: ReceiptError.self, "truncated to \(length) bytes") {
                try AppReceipt(berEncoded: bytes[0..<length])
            }
        }
    }

    @Test(
        .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage),
        arguments: ["aprv-purchasingexp-sandbox-2023-02", "apple-xcode-backyardbirds-with-transaction"])
    func seededRandomBitFlipsNeverTrap(name: String) throws {
        let original = try SharedTestData.receiptBytes(name)
        var generator = SplitMix64(seed: 0x5EED_0F_F11B)
        var decoded = 0
        var rejected = 0
        for _ in 0..<3000 {
            var bytes = original
            let flips = Int(generator.next() % 4) + 1
            for _ in 0..<flips {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] ^= UInt8(1) << UInt8(generator.next() % 8)
            }
            do {
                let receipt = try AppReceipt(berEncoded: bytes)
                // Where the bytes still form a receipt, the result must be usable end to end.
                _ = AppleReceiptJSON.render(receipt.payload)
                decoded += 1
            } catch {
                rejected += 1
            }
        }
        #expect(decoded + rejected == 3000)
        #expect(rejected > 0, "flipping bits in the structure must be noticed at least sometimes")
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func hugeLengthFieldsAreRejectedWithoutAllocating() throws {
        let original = try SharedTestData.receiptBytes("rc-sampleapp-sandbox-2020")
        // Every long-form length field in the file, rewritten to claim 2^32-1 or 2^63 bytes.
        var mutated = 0
        var index = 0
        while index + 5 < original.count {
            if original[index + 1] == 0x82,
                original[index] == 0x30 || original[index] == 0x04 || original[index] == 0x31
            {
                for claim: [UInt8] in [[0x84, 0xFF, 0xFF, 0xFF, 0xFF], [0x88, 0x80, 0, 0, 0, 0, 0, 0, 0]] {
                    var bytes = Array(original[0...index]) + claim + Array(original[(index + 4)...])
                    bytes[0] = original[0]
                    #expect(throws: ReceiptError.self) { try AppReceipt(berEncoded: bytes) }
                    mutated += 1
                }
            }
            index += 1
        }
        #expect(mutated > 10)
    }
}
