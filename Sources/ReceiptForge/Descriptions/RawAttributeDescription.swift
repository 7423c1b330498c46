/// A receipt attribute given as raw bytes: an undocumented type, or a deliberately odd value.
///
/// JSON: `{"type": 25, "version": 1, "hex": "020103"}` (or `"base64"` instead of `"hex"`). `value`
/// is the OCTET STRING's content exactly as it will be written; nothing is DER-encoded for you.
public struct RawAttributeDescription: Hashable, Sendable, Codable {
    /// The attribute type.
    public var type: Int64
    /// The attribute version.
    public var version: Int64
    /// The OCTET STRING content.
    public var value: ByteString

    /// A raw attribute.
    public init(type: Int64, version: Int64 = 1, value: [UInt8]) {
        self.type = type
        self.version = version
        self.value = ByteString(value)
    }

    private enum CodingKeys: String, CodingKey { case type, version }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(Int64.self, forKey: .type)
        version = try container.decodeIfPresent(Int64.self, forKey: .version) ?? 1
        value = try ByteString(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(version, forKey: .version)
        try value.encode(to: encoder)
    }
}
