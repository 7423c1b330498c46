/// A JWS in compact serialization (RFC 7515 §7.1), `BASE64URL(header) . BASE64URL(payload) . BASE64URL(signature)`,
/// decoded but not verified: what StoreKit 2 and App Store Server Notifications V2 sign.
///
/// Decoding is strict and bounded: each segment is base64url without padding or white space (RFC 7515 §2), the
/// header and the payload are JSON objects read by the package's bounded ``JSONReader``, the whole text is at most
/// ``maximumSize`` bytes and `x5c` holds at most ``maximumCertificates`` entries of at most
/// ``maximumCertificateSize`` bytes. Nothing here says the JWS is genuine: `ReceiptVerifier` decides that.
public struct CompactJWS: Sendable {
    /// The JOSE header as sent.
    public let header: JSONObject
    /// The header's `alg` (ES256 is the only one Apple uses), when it is a string.
    public let algorithm: String?
    /// The header's `kid`, when it is a string (Xcode signs with `Apple_Xcode_Key`).
    public let keyID: String?
    /// The header's `x5c` (RFC 7515 §4.1.6) decoded: DER certificates, leaf first; `nil` when absent.
    public let certificates: [[UInt8]]?
    /// The payload as decoded bytes (JSON text).
    package let payloadBytes: [UInt8]
    /// The payload as a JSON object.
    public let payload: JSONObject
    /// The signature segment, decoded.
    public let signature: [UInt8]
    /// The ASCII bytes the signature covers: the first two segments and the dot between them.
    public let signingInput: ArraySlice<UInt8>

    /// The largest JWS read, in bytes. A V2 notification with its two nested JWS is 10–20 KB.
    public static let maximumSize = 256 * 1024
    /// The most `x5c` entries read: Apple's chains are leaf, intermediate, root.
    package static let maximumCertificates = 3
    /// The largest certificate read from `x5c`, in bytes (Apple's are under 1.5 KB).
    package static let maximumCertificateSize = 4096
    /// The deepest JSON nesting read in the header or the payload.
    static let maximumDepth = 16

    /// Decodes `text`: the JWS itself, optionally surrounded by white space (a file's final newline) or quotes.
    /// - Throws: ``JWSError``.
    public init(_ text: ArraySlice<UInt8>) throws(JWSError) {
        let trimmed = Self.trimmed(text)
        guard trimmed.count <= Self.maximumSize else {
            throw JWSError(.tooLarge, "\(trimmed.count) bytes; at most \(Self.maximumSize) are read")
        }
        let dots = trimmed.indices.filter { trimmed[$0] == UInt8(ascii: ".") }
        guard dots.count == 2, let first = dots.first, let second = dots.last else {
            throw JWSError(
                .malformed, "a compact JWS has three segments separated by two dots; found \(dots.count + 1)")
        }
        let headerBytes = try Self.segment(trimmed[trimmed.startIndex..<first], "header")
        payloadBytes = try Self.segment(trimmed[(first + 1)..<second], "payload")
        signature = try Self.segment(trimmed[(second + 1)...], "signature")
        signingInput = trimmed[trimmed.startIndex..<second]
        header = try Self.object(headerBytes, "header")
        payload = try Self.object(payloadBytes, "payload")
        algorithm = try Self.optionalString(header, "alg")
        keyID = try Self.optionalString(header, "kid")
        certificates = try Self.certificates(header)
    }

    /// Decodes a JWS held in a string.
    public init(_ text: String) throws(JWSError) {
        try self.init(Array(text.utf8)[...])
    }

    /// `true` when `text` is meant as a compact JWS rather than a receipt: once white space and quotes around it
    /// are trimmed, it is made of base64 symbols (either alphabet, padding included) and dots, and has at least one
    /// dot. A receipt in any form this package reads (DER, base64 with or without line breaks, a `data:` URL, plist
    /// text) never has a dot among only those symbols, so the decision is exact: whether the text is then a valid
    /// JWS (exactly three base64url segments) is the decoder's to say, and a JWS missing a segment is a malformed
    /// JWS, never a receipt.
    @_spi(Fuzzing) public static func isJWSText(_ text: ArraySlice<UInt8>) -> Bool {
        let trimmed = trimmed(text)
        return trimmed.contains(UInt8(ascii: "."))
            && trimmed.allSatisfy {
                isBase64URLSymbol($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/")
                    || $0 == UInt8(ascii: "=")
            }
    }

    private static func trimmed(_ text: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let outside: Set<UInt8> = [
            UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"), UInt8(ascii: "\""),
        ]
        let start = text.firstIndex { !outside.contains($0) } ?? text.endIndex
        let end = text.lastIndex { !outside.contains($0) }.map { $0 + 1 } ?? start
        return start < end ? text[start..<end] : text[start..<start]
    }

    /// One base64url segment: only `A–Z a–z 0–9 - _`, no padding, a length whole bytes can have.
    private static func segment(_ text: ArraySlice<UInt8>, _ name: String) throws(JWSError) -> [UInt8] {
        guard text.allSatisfy(isBase64URLSymbol), text.count % 4 != 1, let bytes = Base64.decode(text) else {
            throw JWSError(.malformed, "the \(name) segment is not base64url without padding")
        }
        return bytes
    }

    private static func isBase64URLSymbol(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    private static func object(_ bytes: [UInt8], _ name: String) throws(JWSError) -> JSONObject {
        var reader = JSONReader(bytes, maximumDepth: maximumDepth)
        do {
            let members = try reader.topLevelMembers()
            return JSONObject(members: members.map { JSONObject.Member(key: $0.key, value: $0.value) })
        } catch {
            throw JWSError(.malformed, "the \(name) is not a JSON object: \(error.reason)")
        }
    }

    private static func optionalString(_ header: JSONObject, _ key: String) throws(JWSError) -> String? {
        guard let value = header[key] else { return nil }
        guard let text = value.stringValue else { throw JWSError(.malformed, "the header's \(key) is not a string") }
        return text
    }

    /// `x5c`: an array of standard base64 (RFC 7515 §4.1.6: not base64url) DER certificates.
    private static func certificates(_ header: JSONObject) throws(JWSError) -> [[UInt8]]? {
        guard let value = header["x5c"] else { return nil }
        guard let entries = value.arrayValue else { throw JWSError(.malformed, "the header's x5c is not an array") }
        guard entries.count <= maximumCertificates else {
            throw JWSError(
                .tooLarge, "x5c holds \(entries.count) certificates; at most \(maximumCertificates) are read")
        }
        var certificates: [[UInt8]] = []
        for (position, entry) in entries.enumerated() {
            guard let text = entry.stringValue else {
                throw JWSError(.malformed, "x5c entry \(position) is not a string")
            }
            let symbols = Array(text.utf8)
            guard symbols.count <= maximumCertificateSize / 3 * 4 + 4 else {
                throw JWSError(.tooLarge, "x5c entry \(position) is larger than \(maximumCertificateSize) bytes")
            }
            guard !symbols.contains(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 <= 0x20 }),
                let der = Base64.decode(symbols[...]), !der.isEmpty
            else {
                throw JWSError(.malformed, "x5c entry \(position) is not standard base64")
            }
            certificates.append(der)
        }
        return certificates
    }
}
