import ReceiptModel

/// base64url without padding (RFC 7515 §2, RFC 4648 §5): how a compact JWS writes each of its three segments.
enum Base64URL {
    /// Encodes `bytes` (``ReceiptModel/Base64/encodeURL(_:)``).
    static func encode(_ bytes: some Collection<UInt8>) -> String { Base64.encodeURL(Array(bytes)[...]) }
}
