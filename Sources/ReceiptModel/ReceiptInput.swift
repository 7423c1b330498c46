/// What a client sent, recognized: an app receipt (PKCS#7) or an iOS 6 transaction receipt,
/// given as raw bytes or as base64 text.
///
/// Auto-detection: raw bytes starting with a SEQUENCE tag are an app receipt; text is trimmed of
/// white space, surrounding quotes and a `data:…;base64,` prefix, then base64-decoded (standard or
/// URL-safe alphabet); old-style plist text (`{ "signature" = …; }`) is an iOS 6 receipt.
public enum ReceiptInput: Sendable {
    case appReceipt(AppReceipt)
    case iOS6(IOS6TransactionReceipt)

    /// Base64 of the largest receipt accepted is about a third larger than the receipt.
    public static let maximumInputSize = AppReceipt.maximumSize / 3 * 4 + 4096

    /// Recognizes and decodes `bytes`.
    /// - Throws: ``ReceiptError`` with a stable code.
    public init(bytes: [UInt8]) throws(ReceiptError) {
        try self.init(bytes: bytes[...])
    }

    /// Recognizes and decodes `bytes`; raw DER is decoded in place, without a copy.
    /// - Throws: ``ReceiptError`` with a stable code.
    public init(bytes: ArraySlice<UInt8>) throws(ReceiptError) {
        guard bytes.count <= Self.maximumInputSize else {
            throw ReceiptError(.tooLarge, "the input is \(bytes.count) bytes; the limit is \(Self.maximumInputSize)")
        }
        if bytes.first == 0x30 {
            self = .appReceipt(try AppReceipt(berEncoded: bytes))
            return
        }
        let text = Self.trimmed(bytes)
        guard !text.isEmpty else { throw ReceiptError(.emptyInput, "the input is empty") }
        if text.first == UInt8(ascii: "{") {
            self = .iOS6(try IOS6TransactionReceipt(plistText: text))
            return
        }
        guard let decoded = Base64.decode(Self.withoutDataURLPrefix(text)) else {
            throw ReceiptError(.invalidBase64, "the input is neither DER nor base64 text")
        }
        guard !decoded.isEmpty else { throw ReceiptError(.emptyInput, "the base64 text decodes to nothing") }
        switch decoded.first {
        case 0x30:
            self = .appReceipt(try AppReceipt(berEncoded: decoded))
        case UInt8(ascii: "{"):
            self = .iOS6(try IOS6TransactionReceipt(plistText: decoded[...]))
        default:
            throw ReceiptError(.unrecognizedFormat, "the decoded bytes are neither a PKCS#7 receipt nor an iOS 6 receipt")
        }
    }

    /// Drops white space and one pair of surrounding double quotes.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var text = bytes.drop(while: isSpace)
        while let last = text.last, isSpace(last) { text = text.dropLast() }
        if text.count >= 2, text.first == UInt8(ascii: "\""), text.last == UInt8(ascii: "\"") {
            text = text.dropFirst().dropLast()
        }
        return text
    }

    /// Drops a `data:[media type][;base64],` prefix (RFC 2397), if present.
    static func withoutDataURLPrefix(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard text.starts(with: "data:".utf8), let comma = text.firstIndex(of: UInt8(ascii: ",")) else { return text }
        return text[(comma + 1)...]
    }
}
