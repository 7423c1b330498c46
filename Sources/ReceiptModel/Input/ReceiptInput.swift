/// What a client sent, recognized: an app receipt (PKCS#7) or an iOS 6 transaction receipt,
/// given as raw bytes or as base64 text.
///
/// Auto-detection: raw bytes starting with a SEQUENCE tag are an app receipt; text is trimmed of
/// white space, a UTF-8 byte-order mark, surrounding quotes and a `data:…;base64,` prefix, then
/// base64-decoded (standard or URL-safe alphabet); old-style plist text (`{ "signature" = …; }`) is an
/// iOS 6 receipt.
///
/// Recognition is split in two so that whoever forwards a receipt (the remote fallback) sends exactly
/// the bytes that were decoded: ``canonicalBytes(of:)`` strips the client's wrapping and returns the
/// receipt's own bytes (``CanonicalBytes``), and ``init(canonical:)`` decodes those.
public enum ReceiptInput: Sendable {
    /// Boxed: an ``AppReceipt`` holds about twenty references (its slices and arrays), and a verdict, its report and
    /// the ledger's intake each copy the input they carry; one box makes each copy one reference count, not twenty.
    indirect case appReceipt(AppReceipt)
    case iOS6(IOS6TransactionReceipt)

    /// The bytes a receipt is decoded from, once the client's wrapping is gone: the BER/DER of an app
    /// receipt, or the old-style plist text of an iOS 6 receipt. What Apple's verifyReceipt expects, in
    /// base64, as `receipt-data`.
    package struct CanonicalBytes: Sendable, Equatable {
        /// Which decoder the bytes are for.
        public enum Kind: Sendable, Hashable {
            /// PKCS#7 `ContentInfo` (BER/DER), decoded as an ``AppReceipt``.
            case appReceipt
            /// Old-style plist text, decoded by ``IOS6TransactionReceipt/init(plistText:)``.
            case iOS6PlistText
        }

        public let kind: Kind
        /// A slice of the client's bytes (raw DER, raw plist text) or of their base64 decoding.
        public let bytes: ArraySlice<UInt8>
    }

    /// Base64 of the largest receipt accepted is about a third larger than the receipt.
    package static let maximumInputSize = AppReceipt.maximumSize / 3 * 4 + 4096

    /// Recognizes and decodes `bytes`.
    /// - Throws: ``ReceiptError`` with a stable code.
    public init(bytes: [UInt8]) throws(ReceiptError) {
        try self.init(bytes: bytes[...])
    }

    /// Recognizes and decodes `bytes`; raw DER is decoded in place, without a copy (unless it is a slice that starts
    /// inside its array: ``canonicalBytes(of:)``).
    /// - Throws: ``ReceiptError`` with a stable code.
    public init(bytes: ArraySlice<UInt8>) throws(ReceiptError) {
        try self.init(canonical: Self.canonicalBytes(of: bytes))
    }

    /// Decodes bytes ``canonicalBytes(of:)`` recognized.
    /// - Throws: ``ReceiptError`` with a stable code.
    package init(canonical: CanonicalBytes) throws(ReceiptError) {
        switch canonical.kind {
        case .appReceipt: self = .appReceipt(try AppReceipt(berEncoded: canonical.bytes))
        case .iOS6PlistText: self = .iOS6(try IOS6TransactionReceipt(plistText: canonical.bytes))
        }
    }

    /// Strips what a client wraps a receipt in (white space, a byte-order mark, quotes, a `data:` prefix,
    /// base64) and says which decoder the remaining bytes are for. Nothing is decoded beyond base64. Raw DER that
    /// is a slice starting inside its array (a JSON request's string, read in place) is copied into bytes of its
    /// own, so that the positions a decoding error names count from the receipt's first byte wherever it came from.
    /// - Throws: ``ReceiptError`` (`receipt.too_large`, `receipt.empty_input`, `receipt.invalid_base64`,
    ///   `receipt.unrecognized_format`).
    package static func canonicalBytes(of bytes: ArraySlice<UInt8>) throws(ReceiptError) -> CanonicalBytes {
        guard bytes.count <= Self.maximumInputSize else {
            throw ReceiptError(.tooLarge, "the input is \(bytes.count) bytes; the limit is \(Self.maximumInputSize)")
        }
        if bytes.first == 0x30 {
            return CanonicalBytes(kind: .appReceipt, bytes: bytes.startIndex == 0 ? bytes : Array(bytes)[...])
        }
        let text = Self.trimmed(bytes)
        guard !text.isEmpty else { throw ReceiptError(.emptyInput, "the input is empty") }
        if text.first == UInt8(ascii: "{") { return CanonicalBytes(kind: .iOS6PlistText, bytes: text) }
        guard let decoded = Base64.decode(Self.withoutDataURLPrefix(text)) else {
            throw ReceiptError(.invalidBase64, "the input is neither DER nor base64 text")
        }
        switch decoded.first {
        case nil: throw ReceiptError(.emptyInput, "the base64 text decodes to nothing")
        case 0x30: return CanonicalBytes(kind: .appReceipt, bytes: decoded[...])
        case UInt8(ascii: "{"): return CanonicalBytes(kind: .iOS6PlistText, bytes: decoded[...])
        default:
            throw ReceiptError(
                .unrecognizedFormat, "the decoded bytes are neither a PKCS#7 receipt nor an iOS 6 receipt")
        }
    }

    /// The UTF-8 encoding of U+FEFF, which some editors and Windows tools put before text.
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Drops white space, a leading UTF-8 byte-order mark and one pair of surrounding double quotes.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var text = bytes.drop(while: isSpace)
        if text.starts(with: byteOrderMark) { text = text.dropFirst(byteOrderMark.count).drop(while: isSpace) }
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
