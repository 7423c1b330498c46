import ReceiptModel

/// base64url without padding (RFC 7515 §2, RFC 4648 §5): how a compact JWS writes each of its three segments.
enum Base64URL {
    /// Encodes `bytes`: the standard alphabet's `+` and `/` become `-` and `_`, and the `=` padding is dropped.
    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var text = ""
        for character in Base64.encode(Array(bytes)) {
            switch character {
            case "+": text.append("-")
            case "/": text.append("_")
            case "=": continue
            default: text.append(character)
            }
        }
        return text
    }
}
