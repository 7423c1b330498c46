import ReceiptModel

/// The top-level JSON object of a request body (RFC 8259), read by the package's one JSON reader
/// (`ReceiptModel`'s `JSONReader`, flat mode).
///
/// Request bodies are small flat objects (`{"receipt-data": …, "password": …}`) whose one large
/// member is a base64 string. It stays bytes (no `String` of 100 KB, no `Any` boxes) in a single pass;
/// nested objects and arrays are checked for well-formedness and kept only as ``Value/composite``.
@_spi(Fuzzing) public struct RequestJSON: Sendable {
    /// A member's value.
    public enum Value: Sendable, Equatable {
        /// A string, unescaped, as UTF-8 bytes: a slice of the body when it has no escapes.
        case string(ArraySlice<UInt8>)
        /// A number, as its JSON text.
        case number(String)
        case bool(Bool)
        case null
        /// An object or an array (checked, not kept).
        case composite

        init(_ scalar: JSONReader.Scalar) {
            switch scalar {
            case .string(let bytes): self = .string(bytes)
            case .number(let text): self = .number(text)
            case .bool(let flag): self = .bool(flag)
            case .null: self = .null
            case .composite: self = .composite
            }
        }
    }

    /// The deepest nesting accepted, so hostile input cannot exhaust the stack.
    public static let maximumDepth = 16

    /// The members, by name. A name given more than once is kept only in ``duplicated``: reading it is refused
    /// (RFC 8259 §4 leaves a repeated name's meaning open, and two readers of one body must never differ).
    public let members: [String: Value]
    /// The names given more than once.
    public let duplicated: Set<String>

    /// Parses `bytes` as exactly one JSON object, white space around it allowed.
    /// - Throws: ``ServerError`` with code ``ServerError/Code/invalidJSON``.
    public init(parsing bytes: [UInt8]) throws(ServerError) {
        var reader = JSONReader(bytes, maximumDepth: Self.maximumDepth)
        do throws(JSONReader.Failure) {
            var members: [String: Value] = [:]
            var duplicated = Set<String>()
            for member in try reader.flatMembers()
            where members.updateValue(Value(member.value), forKey: member.key) != nil {
                duplicated.insert(member.key)
            }
            self.members = members
            self.duplicated = duplicated
        } catch {
            throw ServerError(.invalidJSON, error.reason)
        }
    }

    /// The member named `name` as parsed (for a repeated name, its last value), without the duplicate check.
    public subscript(name: String) -> Value? { members[name] }

    /// The member named `name`, `nil` when absent.
    /// - Throws: ``ServerError/Code/duplicateMember`` when the body names it more than once.
    public func member(_ name: String) throws(ServerError) -> Value? {
        guard !duplicated.contains(name) else {
            throw ServerError(.duplicateMember, "\"\(name)\" is given more than once")
        }
        return members[name]
    }

    /// The member as a string, `nil` when absent or `null`.
    /// - Throws: ``ServerError/Code/invalidJSON`` when it has another type, ``ServerError/Code/duplicateMember``.
    public func string(_ name: String) throws(ServerError) -> ArraySlice<UInt8>? {
        switch try member(name) {
        case nil, .null: return nil
        case .string(let bytes): return bytes
        default: throw ServerError(.invalidJSON, "\"\(name)\" must be a string")
        }
    }

    /// The member as a boolean, `nil` when absent or `null`.
    /// - Throws: ``ServerError/Code/invalidJSON`` when it has another type, ``ServerError/Code/duplicateMember``.
    public func bool(_ name: String) throws(ServerError) -> Bool? {
        switch try member(name) {
        case nil, .null: return nil
        case .bool(let value): return value
        // Some clients send "true"/"false" as strings; Apple accepts them.
        case .string(let bytes) where bytes.elementsEqual("true".utf8): return true
        case .string(let bytes) where bytes.elementsEqual("false".utf8): return false
        default: throw ServerError(.invalidJSON, "\"\(name)\" must be a boolean")
        }
    }
}
