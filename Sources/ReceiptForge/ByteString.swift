import Foundation

/// Bytes written in a JSON description as `{"hex": "…"}` or `{"base64": "…"}`.
///
/// Exists so opaque values, hashes and raw attributes can be given in whichever form is at hand;
/// it always encodes back as hex, so committed descriptions stay readable and stable.
public struct ByteString: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The bytes.
    public var bytes: [UInt8]

    /// Wraps bytes.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Parses hex text (upper or lower case, no separators).
    public init(hex: String) throws(ForgeError) {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else {
            throw ForgeError(.invalidBytes, "hex text has an odd number of digits (\(digits.count))")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else {
                throw ForgeError(.invalidBytes, "hex text has a non-hex character near offset \(index)")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.bytes = bytes
    }

    /// Parses base64 text.
    public init(base64: String) throws(ForgeError) {
        guard let data = Data(base64Encoded: base64) else {
            throw ForgeError(.invalidBytes, "text is not valid base64")
        }
        self.bytes = [UInt8](data)
    }

    /// The bytes as lower-case hex.
    public var hex: String { Self.hex(bytes) }

    /// `bytes` as lower-case hex.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public var description: String { hex }

    private enum CodingKeys: String, CodingKey { case hex, base64 }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let hex = try container.decodeIfPresent(String.self, forKey: .hex) {
            self = try ByteString(hex: hex)
        } else if let base64 = try container.decodeIfPresent(String.self, forKey: .base64) {
            self = try ByteString(base64: base64)
        } else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "bytes need a \"hex\" or \"base64\" key"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hex, forKey: .hex)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
