/// A JSON value as Apple sent it: objects keep their members in order (duplicates included) and
/// numbers keep their literal text, so nothing is lost or reinterpreted.
///
/// verifyReceipt responses mix types freely (`adam_id` is a number, `quantity` a string, `is-retryable`
/// a boolean), and callers may need keys this package does not know; this is the faithful form they
/// are kept in.
public indirect enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number's literal text, exactly as written (RFC 8259 §6).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, when this is a string.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, when this is a number without fraction or exponent that fits 64 bits.
    public var integerValue: Int64? {
        if case .number(let text) = self { return Int64(text) }
        return nil
    }

    /// The Boolean, when this is `true` or `false`.
    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object, when this is an object.
    package var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// Compact JSON text of this value (keys in their original order).
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }

    /// Writes this value with ``JSONWriter`` (its escaping, the package's one).
    @_spi(Fuzzing) public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .number(let text): writer.raw(text.utf8)
        case .string(let value): writer.string(value)
        case .array(let elements):
            writer.beginArray()
            for element in elements { element.write(to: &writer) }
            writer.endArray()
        case .object(let object):
            writer.beginObject()
            for member in object.members {
                writer.key(member.key)
                member.value.write(to: &writer)
            }
            writer.endObject()
        }
    }
}

/// A JSON object's members in the order they were written.
public struct JSONObject: Sendable, Hashable {
    /// One `"key": value` pair.
    public struct Member: Sendable, Hashable {
        public let key: String
        public let value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Every member, in order; a key written twice appears twice.
    public let members: [Member]

    public init(members: [Member]) { self.members = members }

    /// The first member's value for `key`.
    public subscript(key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    /// A string member, also accepting a number written as a number (Apple mixes both).
    public func text(_ key: String) -> String? {
        switch self[key] {
        case .string(let value): value
        case .number(let value): value
        default: nil
        }
    }
}
