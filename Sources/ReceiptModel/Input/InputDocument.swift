/// What one input (a file, standard input) holds, recognized exactly, before anything is verified: a receipt, a
/// compact JWS, or a JSON object that holds either under a member whose name says what it is.
///
/// The rules, in order, each exact (docs/jws.md, "How an input is recognized"):
/// 1. raw bytes starting with a SEQUENCE tag (`0x30`) are a DER/BER receipt;
/// 2. text (white space, a byte-order mark and one pair of quotes trimmed) of base64 symbols and dots with at least
///    one dot is a compact JWS (``CompactJWS/isJWSText(_:)``): a receipt in any form has no dot there;
/// 3. text starting with `{` whose first key is followed by `:` is JSON (an old-style plist follows it by `=`): a
///    JSON object is read for exactly one of the members ``members`` names, which also gives a JWS's kind
///    (`{"signedPayload": …}`, Apple's notification body, holds a notification);
/// 4. anything else is a receipt's text (base64, a `data:` URL, iOS 6 plist text), for ``ReceiptInput``.
@_spi(Fuzzing) public enum InputDocument: Sendable, Equatable {
    /// Bytes for ``ReceiptInput``.
    case receipt(ArraySlice<UInt8>)
    /// A JWS's text; `kind` when the member that held it says it (`nil`: on its own), with that member's name.
    case jws(ArraySlice<UInt8>, kind: JWSPayload.Kind?, member: String?)

    /// The JSON members an input may hold its receipt or JWS under, by name. Apple's: `signedPayload` (a
    /// notification body), `signedTransactionInfo`, `signedRenewalInfo`, `signedAppTransactionInfo` (App Store
    /// Server API answers), `receipt-data` (a verifyReceipt request); this package's `/v1/verify` request:
    /// `signed_transaction`, `receipt_data`.
    public static let members = [
        "signedPayload", "signedTransactionInfo", "signedRenewalInfo", "signedAppTransactionInfo", "signed_transaction",
        "receipt-data", "receipt_data",
    ]

    /// How deep a JSON input may nest.
    static let maximumDepth = 16

    /// Recognizes `bytes`.
    /// - Throws: ``ReceiptError`` `receipt.too_large`, or `receipt.unrecognized_format` for JSON that is malformed
    ///   or holds none (or more than one) of ``members`` as a string.
    public init(recognizing bytes: ArraySlice<UInt8>) throws(ReceiptError) {
        guard bytes.count <= ReceiptInput.maximumInputSize else {
            throw ReceiptError(
                .tooLarge, "the input is \(bytes.count) bytes; the limit is \(ReceiptInput.maximumInputSize)")
        }
        if bytes.first == 0x30 {
            self = .receipt(bytes)
            return
        }
        let text = ReceiptInput.trimmed(bytes)
        if CompactJWS.isJWSText(text) {
            self = .jws(text, kind: nil, member: nil)
        } else if Self.isJSONObject(text) {
            self = try Self.member(ofJSON: text)
        } else {
            self = .receipt(bytes)
        }
    }

    /// `true` when `text` opens a JSON object: `{`, then `}` or a quoted key followed by `:`. Old-style plist text
    /// follows its first key by `=` (or leaves it unquoted).
    static func isJSONObject(_ text: ArraySlice<UInt8>) -> Bool {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        guard text.first == UInt8(ascii: "{") else { return false }
        var index = text.index(after: text.startIndex)
        while index < text.endIndex, isSpace(text[index]) { index += 1 }
        guard index < text.endIndex else { return false }
        if text[index] == UInt8(ascii: "}") { return true }
        guard text[index] == UInt8(ascii: "\"") else { return false }
        index += 1
        var escaped = false
        while index < text.endIndex {
            let byte = text[index]
            index += 1
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                while index < text.endIndex, isSpace(text[index]) { index += 1 }
                return index < text.endIndex && text[index] == UInt8(ascii: ":")
            }
        }
        return false
    }

    /// The one recognized member of a JSON object.
    static func member(ofJSON text: ArraySlice<UInt8>) throws(ReceiptError) -> InputDocument {
        // A copy: the JSON reader works on an array of its own (a JSON input is small; receipts never get here).
        var reader = JSONReader(Array(text), maximumDepth: maximumDepth)
        let object: [JSONReader.Member]
        do {
            object = try reader.topLevelMembers()
        } catch {
            throw ReceiptError(.unrecognizedFormat, "the input is not a JSON object: \(error.reason)")
        }
        let found = object.filter { members.contains($0.key) }
        guard found.count == 1, let member = found.first else {
            let names = members.joined(separator: ", ")
            throw ReceiptError(
                .unrecognizedFormat,
                found.isEmpty
                    ? "the JSON object holds none of \(names)"
                    : "the JSON object holds \(found.map(\.key).joined(separator: " and ")); give one")
        }
        guard let value = member.value.stringValue else {
            throw ReceiptError(.unrecognizedFormat, "\(member.key) is not a string")
        }
        let bytes = Array(value.utf8)[...]
        if let kind = JWSPayload.Kind(member: member.key) {
            return .jws(bytes, kind: kind, member: member.key)
        }
        return .receipt(bytes)
    }
}
