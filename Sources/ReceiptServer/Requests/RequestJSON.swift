import ReceiptModel

/// The top-level JSON object of a request body (RFC 8259), read by the package's one JSON reader
/// (`ReceiptModel`'s `JSONReader`, flat mode).
///
/// Request bodies are small flat objects (`{"receipt-data": …, "password": …}`) whose one large
/// member is a base64 string. It stays bytes (no `String` of 100 KB, no `Any` boxes) in a single pass;
/// nested objects and arrays are checked for well-formedness and kept only as ``Value/composite``.
public struct RequestJSON: Sendable {
    /// A member's value.
    public enum Value: Sendable, Equatable {
        /// A string, unescaped, as UTF-8 bytes.
        case string([UInt8])
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

    /// The members, by name; a repeated name keeps its last value (RFC 8259 §4 leaves it open).
    public let members: [String: Value]

    /// Parses `bytes` as exactly one JSON object, white space around it allowed.
    /// - Throws: ``ServerError`` with code ``ServerError/Code/invalidJSON``.
    public init(parsing bytes: [UInt8]) throws(ServerError) {
        var reader = JSONReader(bytes, maximumDepth: Self.maximumDepth)
        do throws(JSONReader.Failure) {
            var members: [String: Value] = [:]
            for member in try reader.flatMembers() { members[member.key] = Value(member.value) }
            self.members = members
        } catch {
            throw ServerError(.invalidJSON, error.reason)
        }
    }

    public subscript(name: String) -> Value? { members[name] }

    /// The member as a string, `nil` when absent or `null`.
    /// - Throws: ``ServerError/Code/invalidJSON`` when it has another type.
    public func string(_ name: String) throws(ServerError) -> [UInt8]? {
        switch members[name] {
        case nil, .null: return nil
        case .string(let bytes): return bytes
        default: throw ServerError(.invalidJSON, "\"\(name)\" must be a string")
        }
    }

    /// The member as a boolean, `nil` when absent or `null`.
    /// - Throws: ``ServerError/Code/invalidJSON`` when it has another type.
    public func bool(_ name: String) throws(ServerError) -> Bool? {
        switch members[name] {
        case nil, .null: return nil
        case .bool(let value): return value
        // Some clients send "true"/"false" as strings; Apple accepts them.
        case .string(let bytes) where bytes.elementsEqual("true".utf8): return true
        case .string(let bytes) where bytes.elementsEqual("false".utf8): return false
        default: throw ServerError(.invalidJSON, "\"\(name)\" must be a boolean")
        }
    }
}
