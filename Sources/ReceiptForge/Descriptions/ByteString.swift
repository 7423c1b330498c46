internal import BER
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
        switch Hex.decode(hex.utf8) {
        case .success(let bytes): self.bytes = bytes
        case .failure(.oddLength(let count)):
            throw ForgeError(.invalidBytes, "hex text has an odd number of digits (\(count))")
        case .failure(.notADigit(let offset)):
            throw ForgeError(.invalidBytes, "hex text has a non-hex character at offset \(offset)")
        }
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
    public static func hex(_ bytes: some Sequence<UInt8>) -> String { Hex.encode(bytes) }

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
}
