/// One receipt a client could send: its name, what it exercises, and its bytes (DER, or an iOS 6 receipt's
/// plist text), which a request carries base64-encoded.
public struct HostileVariant: Sendable {
    /// A short name for tables and file names.
    public var name: String
    /// What it makes the server do.
    public var summary: String
    /// The receipt.
    public var bytes: [UInt8]

    public init(name: String, summary: String, bytes: [UInt8]) {
        self.name = name
        self.summary = summary
        self.bytes = bytes
    }

    /// `{"receipt-data":"<base64>"}`, the body a client POSTs to `/verifyReceipt`.
    public var requestBody: [UInt8] {
        Array("{\"receipt-data\":\"\(base64)\"}".utf8)
    }

    /// The receipt in base64, as clients send it.
    public var base64: String { Base64Text.encode(bytes) }
}

/// Base64 without Foundation's `Data` round trip (the bodies reach a megabyte).
enum Base64Text {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int((value >> UInt32(shift)) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out.append(alphabet[Int((value >> 18) & 63)])
            out.append(alphabet[Int((value >> 12) & 63)])
            out.append(rest == 2 ? alphabet[Int((value >> 6) & 63)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
