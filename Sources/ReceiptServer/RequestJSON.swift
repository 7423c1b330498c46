/// The top-level JSON object of a request body (RFC 8259), read by hand.
///
/// Request bodies are small flat objects (`{"receipt-data": …, "password": …}`) whose one large
/// member is a base64 string. Reading them directly keeps the receipt data as bytes (no `String`
/// of 100 KB, no `Any` boxes) and costs a single pass; nested objects and arrays are checked for
/// well-formedness and kept only as ``Value/composite``.
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
    }

    /// The deepest nesting accepted, so hostile input cannot exhaust the stack.
    public static let maximumDepth = 16

    /// The members, by name; a repeated name keeps its last value (RFC 8259 §4 leaves it open).
    public let members: [String: Value]

    /// Parses `bytes` as exactly one JSON object, white space around it allowed.
    /// - Throws: ``ServerError`` with code ``ServerError/Code/invalidJSON``.
    public init(parsing bytes: [UInt8]) throws(ServerError) {
        var parser = Parser(bytes: bytes)
        members = try parser.parseTopLevelObject()
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

    struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func parseTopLevelObject() throws(ServerError) -> [String: Value] {
            skipSpace()
            guard peek() == UInt8(ascii: "{") else { throw failure("the body is not a JSON object") }
            index += 1
            var members: [String: Value] = [:]
            skipSpace()
            if peek() == UInt8(ascii: "}") {
                index += 1
            } else {
                while true {
                    skipSpace()
                    guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                    let name = String(decoding: try parseString(), as: UTF8.self)
                    skipSpace()
                    try expect(UInt8(ascii: ":"))
                    members[name] = try parseValue(depth: 1)
                    skipSpace()
                    if peek() == UInt8(ascii: ",") {
                        index += 1
                        continue
                    }
                    try expect(UInt8(ascii: "}"))
                    break
                }
            }
            skipSpace()
            guard index == bytes.count else { throw failure("trailing bytes after the JSON object") }
            return members
        }

        mutating func parseValue(depth: Int) throws(ServerError) -> Value {
            skipSpace()
            guard let byte = peek() else { throw failure("the body ends inside a value") }
            switch byte {
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                try skipComposite(depth: depth + 1)
                return .composite
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try parseNumber())
            default:
                throw failure("unexpected character at offset \(index)")
            }
        }

        /// Checks an object or array and moves past it.
        mutating func skipComposite(depth: Int) throws(ServerError) {
            guard depth <= RequestJSON.maximumDepth else { throw failure("nested deeper than \(RequestJSON.maximumDepth)") }
            let isObject = bytes[index] == UInt8(ascii: "{")
            let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            skipSpace()
            if peek() == close {
                index += 1
                return
            }
            while true {
                skipSpace()
                if isObject {
                    guard peek() == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                    _ = try parseString()
                    skipSpace()
                    try expect(UInt8(ascii: ":"))
                }
                switch try parseValue(depth: depth) {
                case .composite, .string, .number, .bool, .null: break
                }
                skipSpace()
                if peek() == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect(close)
                return
            }
        }

        /// RFC 8259 §7: a quoted string with escapes; returns its UTF-8 bytes.
        mutating func parseString() throws(ServerError) -> [UInt8] {
            index += 1  // opening quote
            let start = index
            // Fast path: no escapes, which is every base64 string that was not escaped as `\/`.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return Array(bytes[start..<(index - 1)])
                }
                if byte == UInt8(ascii: "\\") { break }
                guard byte >= 0x20 else { throw failure("control character inside a string") }
                index += 1
            }
            var output = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return output
                case UInt8(ascii: "\\"):
                    guard let escape = peek() else { break }
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escape)
                    case UInt8(ascii: "b"): output.append(0x08)
                    case UInt8(ascii: "f"): output.append(0x0C)
                    case UInt8(ascii: "n"): output.append(0x0A)
                    case UInt8(ascii: "r"): output.append(0x0D)
                    case UInt8(ascii: "t"): output.append(0x09)
                    case UInt8(ascii: "u"): try appendUnicodeEscape(to: &output)
                    default: throw failure("invalid escape in a string")
                    }
                default:
                    guard byte >= 0x20 else { throw failure("control character inside a string") }
                    output.append(byte)
                }
            }
            throw failure("unterminated string")
        }

        /// `\uXXXX`, with surrogate pairs, appended as UTF-8; lone surrogates become U+FFFD.
        mutating func appendUnicodeEscape(to output: inout [UInt8]) throws(ServerError) {
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            {
                index += 2
                let low = try hex4()
                scalar = (0xDC00..<0xE000).contains(low) ? 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD
            }
            let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
            output.append(contentsOf: String(Character(character)).utf8)
        }

        mutating func hex4() throws(ServerError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw failure("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw failure("invalid \\u escape")
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }

        /// RFC 8259 §6: `-? int frac? exp?`.
        mutating func parseNumber() throws(ServerError) -> String {
            let start = index
            if peek() == UInt8(ascii: "-") { index += 1 }
            guard let first = peek(), isDigit(first) else { throw failure("invalid number") }
            if first == UInt8(ascii: "0") {
                index += 1
            } else {
                skipDigits()
            }
            if peek() == UInt8(ascii: ".") {
                index += 1
                guard let next = peek(), isDigit(next) else { throw failure("invalid number") }
                skipDigits()
            }
            if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
                index += 1
                if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
                guard let next = peek(), isDigit(next) else { throw failure("invalid number") }
                skipDigits()
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func literal(_ word: StaticString) throws(ServerError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw failure("invalid literal") }
            let matches = word.withUTF8Buffer { $0.elementsEqual(bytes[index..<(index + count)]) }
            guard matches else { throw failure("invalid literal") }
            index += count
        }

        mutating func expect(_ byte: UInt8) throws(ServerError) {
            guard peek() == byte else {
                throw failure("expected '\(Character(Unicode.Scalar(byte)))' at offset \(index)")
            }
            index += 1
        }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        mutating func skipDigits() {
            while let byte = peek(), isDigit(byte) { index += 1 }
        }

        mutating func skipSpace() {
            while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        func failure(_ reason: String) -> ServerError { ServerError(.invalidJSON, reason) }
    }
}
