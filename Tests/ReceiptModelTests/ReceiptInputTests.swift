import Foundation
import ReceiptModel
import TestSupport
import Testing

/// How ``ReceiptInput`` recognizes what a client sent: the wrappings it strips (white space, a UTF-8
/// byte-order mark, quotes, a `data:` prefix, base64) and the exact bytes it then decodes.
@Suite("ReceiptInput")
struct ReceiptInputTests {
    static let fixtures = SharedTestData.packageRoot.appendingPathComponent("fixtures")
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    static func fixture(_ name: String) throws -> [UInt8] {
        try SharedTestData.bytes(at: fixtures.appendingPathComponent(name))
    }

    /// Editors and Windows tools put U+FEFF before text files; it is not part of the base64.
    @Test(
        arguments: [
            { (text: [UInt8]) in byteOrderMark + text }, { text in byteOrderMark + Array(" \r\n".utf8) + text },
            { text in byteOrderMark + Array("\"".utf8) + text + Array("\"\n".utf8) },
            { text in Array("  ".utf8) + byteOrderMark + text },
        ] as [@Sendable ([UInt8]) -> [UInt8]])
    func acceptsAByteOrderMarkBeforeBase64(_ wrap: @Sendable ([UInt8]) -> [UInt8]) throws {
        let der = try Self.fixture("valid-sha256.receipt")
        let input = try ReceiptInput(bytes: wrap(Array(Base64.encode(der).utf8)))
        guard case .appReceipt(let receipt) = input else {
            Issue.record("not recognized as an app receipt")
            return
        }
        #expect(receipt.payload.bundleID == "org.example.receiptforge.sample")
        let ios6 = try ReceiptInput(bytes: wrap(try Self.fixture("ios6-valid.b64")))
        guard case .iOS6 = ios6 else {
            Issue.record("not recognized as an iOS 6 receipt")
            return
        }
    }

    /// Raw DER handed over as a slice inside a larger buffer (a JSON request's string, read in place) fails as the same
    /// bytes on their own do: the positions an error names count from the receipt's first byte.
    @Test func rawDERInsideALargerBufferNamesPositionsInItsOwnBytes() throws {
        let truncated = Array(try Self.fixture("valid-sha256.receipt").prefix(300))
        let prefix = Array(#"{"receipt_data":""#.utf8)
        let buffer = prefix + truncated + Array(#""}"#.utf8)
        let slice = buffer[prefix.count..<(prefix.count + truncated.count)]
        let reasons = [truncated[...], slice].map { (bytes: ArraySlice<UInt8>) -> String? in
            do throws(ReceiptError) {
                _ = try ReceiptInput(bytes: bytes)
                return nil
            } catch {
                return "\(error.code): \(error.reason)"
            }
        }
        #expect(reasons[0] != nil)
        #expect(reasons[0] == reasons[1])
    }

    @Test func aByteOrderMarkAloneIsEmptyAndOneInsideTheTextIsNotBase64() throws {
        #expect(throws: ReceiptError(.emptyInput, "")) { try ReceiptInput(bytes: Self.byteOrderMark) }
        let base64 = Array(Base64.encode(try Self.fixture("valid-sha256.receipt")).utf8)
        #expect(throws: ReceiptError(.invalidBase64, "")) {
            try ReceiptInput(bytes: Array(base64.prefix(8)) + Self.byteOrderMark + Array(base64.dropFirst(8)))
        }
    }

    /// The canonical bytes are what the decoder reads, so a caller that forwards them (the remote fallback)
    /// sends exactly what was verified.
    @Test func canonicalBytesAreTheBytesDecoded() throws {
        let der = try Self.fixture("valid-sha256.receipt")
        let base64 = Array(Base64.encode(der).utf8)
        for form in [der, base64, Array("\"".utf8) + base64 + Array("\"".utf8), Self.byteOrderMark + base64] {
            let canonical = try ReceiptInput.canonicalBytes(of: form[...])
            #expect(canonical.kind == .appReceipt)
            #expect(Array(canonical.bytes) == der)
        }
        let plist = try #require(Base64.decode(try Self.fixture("ios6-valid.b64")))
        let text = Array(plist.dropLast())  // the plist ends with a line feed, which trimming drops
        for (form, expected) in [
            (try Self.fixture("ios6-valid.b64"), plist), (plist, text), ([0x0B] + plist + [0x0C], text),
            (Array("\"".utf8) + plist + Array("\"".utf8), plist),
        ] {
            let canonical = try ReceiptInput.canonicalBytes(of: form[...])
            #expect(canonical.kind == .iOS6PlistText)
            #expect(Array(canonical.bytes) == expected)
            // Decoding the canonical bytes gives the receipt decoding the client's bytes gives.
            guard case .iOS6(let fromCanonical) = try ReceiptInput(canonical: canonical),
                case .iOS6(let fromForm) = try ReceiptInput(bytes: form)
            else {
                Issue.record("not recognized as an iOS 6 receipt")
                continue
            }
            #expect(fromCanonical.purchaseInfoBytes == fromForm.purchaseInfoBytes)
        }
    }
}
