import Foundation
@_spi(Fuzzing) import ReceiptModel
import TestSupport
import Testing

@Suite("IOS6TransactionReceipt")
struct IOS6TransactionReceiptTests {
    static func sampleBase64() throws -> [UInt8] {
        try SharedTestData.bytes(
            at: SharedTestData.receiptsDirectory.appendingPathComponent("ios6/ios6-venice-sample.b64"))
    }

    static func expectCode(
        _ code: ReceiptError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as ReceiptError {
            #expect(error.code == code, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Builds a plist text with the given entries, each value quoted.
    static func plist(_ entries: [(String, String)]) -> [UInt8] {
        Array(("{\n" + entries.map { "\t\"\($0.0)\" = \"\($0.1)\";\n" }.joined() + "}").utf8)
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func decodesTheRealSample() throws {
        let receipt = try IOS6TransactionReceipt(base64Encoded: Self.sampleBase64()[...])
        #expect(receipt.environment == "Sandbox")
        #expect(receipt.pod == "100")
        #expect(receipt.signingStatus == "0")
        #expect(receipt.signature.version == 2)
        #expect(receipt.signature.signature.count == 128)
        #expect(receipt.signature.certificate.count == 855)
        #expect(receipt.signature.certificate.first == 0x30)
        let info = receipt.purchaseInfo
        #expect(info.bundleID == "com.mindmobapp.MindMob")
        #expect(info.bundleVersion == "20120427")
        #expect(info.productID == "com.mindmobapp.download")
        #expect(info.transactionID == "1000000046178817")
        #expect(info.originalTransactionID == "1000000046178817")
        #expect(info.itemID == "521129812")
        #expect(info.quantity == 1)
        #expect(info.purchaseDate == ReceiptDate(clampingMillisecondsSince1970: 1_335_798_355_868))
        #expect(receipt.signedBytes.first == 2)
        #expect(Array(receipt.signedBytes.dropFirst()) == receipt.purchaseInfoBytes)
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func decodesThePlainTextForm() throws {
        let text = try SharedTestData.bytes(
            at: SharedTestData.receiptsDirectory.appendingPathComponent("ios6/ios6-venice-sample.txt"))
        #expect(IOS6TransactionReceipt.looksLikePlistText(text[...]))
        let receipt = try IOS6TransactionReceipt(plistText: text[...])
        #expect(receipt.purchaseInfo.productID == "com.mindmobapp.download")
    }

    @Test func tellsPlistTextFromPKCS7() {
        #expect(IOS6TransactionReceipt.looksLikePlistText(Array("  \n{ }".utf8)[...]))
        #expect(!IOS6TransactionReceipt.looksLikePlistText([0x30, 0x80][...]))
        #expect(!IOS6TransactionReceipt.looksLikePlistText([][...]))
    }

    @Test func rejectsEmptyInput() {
        Self.expectCode(.emptyInput) { _ = try IOS6TransactionReceipt(plistText: Array(" \n".utf8)[...]) }
    }

    @Test func rejectsInvalidBase64() {
        Self.expectCode(.invalidBase64) { _ = try IOS6TransactionReceipt(base64Encoded: Array("ab*d".utf8)[...]) }
        Self.expectCode(.invalidBase64) { _ = try IOS6TransactionReceipt(base64Encoded: Array("abcde".utf8)[...]) }
    }

    @Test func rejectsMissingEntries() {
        Self.expectCode(.unrecognizedFormat) {
            _ = try IOS6TransactionReceipt(plistText: Self.plist([("purchase-info", "e30=")])[...])
        }
    }

    @Test func rejectsMalformedPlists() {
        for text in [
            "{ \"a\" = \"b\" }", "{ \"a\" \"b\"; }", "{ \"a\" = \"b; }", "{ \"a\" = \"b\"; } x", "{ a = (1); }",
        ] {
            Self.expectCode(.invalidPayload) { _ = try IOS6TransactionReceipt(plistText: Array(text.utf8)[...]) }
        }
        Self.expectCode(.duplicateAttribute) {
            _ = try IOS6TransactionReceipt(plistText: Array("{ a = b; a = c; }".utf8)[...])
        }
        Self.expectCode(.unrecognizedFormat) { _ = try IOS6TransactionReceipt(plistText: Array("[ 1 ]".utf8)[...]) }
    }

    @Test func rejectsTooManyEntries() {
        let text = "{" + (0...IOS6TransactionReceipt.maximumEntries).map { "k\($0) = v;" }.joined() + "}"
        Self.expectCode(.tooLarge) { _ = try IOS6TransactionReceipt(plistText: Array(text.utf8)[...]) }
    }

    @Test func rejectsOversizedInput() {
        let huge = [UInt8](repeating: UInt8(ascii: "A"), count: IOS6TransactionReceipt.maximumSize * 2)
        Self.expectCode(.tooLarge) { _ = try IOS6TransactionReceipt(base64Encoded: huge[...]) }
    }

    static let malformedBlobs: [(String, [UInt8])] = {
        let zeros128 = [UInt8](repeating: 0, count: 128)
        var table: [(String, [UInt8])] = []
        table.append(("empty blob", []))
        table.append(("unknown version", [UInt8](repeating: 9, count: 200)))
        table.append(("truncated", [2] + [UInt8](repeating: 0, count: 100)))
        table.append(("length past the end", [2] + zeros128 + [0, 0, 0x10, 0, 0x30]))
        table.append(("trailing bytes", [2] + zeros128 + [0, 0, 0, 1, 0x30, 0x00]))
        table.append(("zero length", [3] + [UInt8](repeating: 0, count: 256) + [0, 0, 0, 0]))
        table.append(("huge length", [2] + zeros128 + [0xFF, 0xFF, 0xFF, 0xFF]))
        return table
    }()

    @Test(arguments: malformedBlobs)
    func rejectsMalformedSignatureBlobs(name: String, blob: [UInt8]) {
        let text = Self.plist([
            ("signature", Self.base64(blob)), ("purchase-info", Self.base64(Array("{ a = b; }".utf8))),
        ])
        Self.expectCode(.invalidAttribute) { _ = try IOS6TransactionReceipt(plistText: text[...]) }
    }

    @Test func acceptsAWellFormedSyntheticReceipt() throws {
        let blob = [UInt8]([3]) + [UInt8](repeating: 7, count: 256) + [0, 0, 0, 2] + [0x30, 0x00]
        let info = Array("{\n\t\"bid\" = \"com.example.app\";\n\t\"quantity\" = \"2\";\n}".utf8)
        let text = Self.plist([("signature", Self.base64(blob)), ("purchase-info", Self.base64(info))])
        let receipt = try IOS6TransactionReceipt(base64Encoded: Array(Self.base64(text).utf8)[...])
        #expect(receipt.signature.version == 3)
        #expect(receipt.signature.certificate == [0x30, 0x00])
        #expect(receipt.purchaseInfo.bundleID == "com.example.app")
        #expect(receipt.purchaseInfo.quantity == 2)
        #expect(receipt.environment == nil)
    }

    /// Mutated copies of the real sample (seeded generator) must decode or throw, never trap.
    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func survivesMutatedInput() throws {
        let original = try IOS6TransactionReceipt(base64Encoded: Self.sampleBase64()[...])
        let text = Array(original.entries.map { "\"\($0.key)\" = \"\($0.value)\";" }.joined().utf8)
        var generator = SplitMix64(seed: 0x9E37_79B9_7F4A_7C15)
        func next() -> Int { Int(truncatingIfNeeded: generator.next() >> 1) }
        for _ in 0..<2000 {
            var bytes = Array("{".utf8) + text + Array("}".utf8)
            for _ in 0..<(1 + next() % 4) {
                let index = next() % bytes.count
                switch next() % 3 {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: next())
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8(truncatingIfNeeded: next()), at: index)
                }
            }
            _ = try? IOS6TransactionReceipt(plistText: bytes[...])
        }
    }
}
