/// A strict, bounded RFC 8259 parser for Apple's responses: no recursion past ``maximumDepth``, every
/// index checked, invalid input a ``RemoteError`` (`remote.malformed_response`), never a trap.
///
/// Written here rather than using Foundation's so that the top-level members' exact byte ranges are
/// known (``parseTopLevelObject()``): the `receipt` object is passed on byte for byte.
struct JSONParser {
    /// Apple's responses nest four levels deep; anything far deeper is hostile.
    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// One member of the top-level object with the byte range its value occupies in the input.
    struct TopLevelMember {
        let key: String
        let value: JSONValue
        let range: Range<Int>
    }

    /// Parses a document that must be one object, keeping each member's value range.
    mutating func parseTopLevelObject() throws(RemoteError) -> [TopLevelMember] {
        skipWhitespace()
        guard peek() == UInt8(ascii: "{") else { throw fail("the body is not a JSON object") }
        index += 1
        var members: [TopLevelMember] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                let key = try parseString()
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                let start = index
                let value = try parseValue(depth: 1)
                members.append(TopLevelMember(key: key, value: value, range: start..<index))
                skipWhitespace()
                if peek() == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect(UInt8(ascii: "}"))
                break
            }
        }
        skipWhitespace()
        guard index == bytes.count else { throw fail("trailing bytes after the JSON object") }
        return members
    }

    /// Parses a whole document holding any one value.
    mutating func parseDocument() throws(RemoteError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail("trailing bytes after the JSON value") }
        return value
    }

    private mutating func parseValue(depth: Int) throws(RemoteError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw fail("nested deeper than \(Self.maximumDepth) levels") }
        guard let byte = peek() else { throw fail("unexpected end of the body") }
        switch byte {
        case UInt8(ascii: "{"): return .object(try parseObject(depth: depth))
        case UInt8(ascii: "["): return .array(try parseArray(depth: depth))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw fail("unexpected byte 0x\(String(byte, radix: 16)) at offset \(index)")
        }
    }

    private mutating func parseObject(depth: Int) throws(RemoteError) -> JSONObject {
        index += 1
        var members: [JSONObject.Member] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return JSONObject(members: members)
        }
        while true {
            skipWhitespace()
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            members.append(JSONObject.Member(key: key, value: try parseValue(depth: depth + 1)))
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"))
            return JSONObject(members: members)
        }
    }

    private mutating func parseArray(depth: Int) throws(RemoteError) -> [JSONValue] {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"))
            return elements
        }
    }

    /// RFC 8259 §7, with `\u` surrogate pairs; lone surrogates and invalid UTF-8 become U+FFFD.
    private mutating func parseString() throws(RemoteError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string at offset \(index)") }
        index += 1
        var output: [UInt8] = []
        while true {
            guard let byte = peek() else { throw fail("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: output, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = peek() else { throw fail("unterminated escape") }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800..<0xDC00).contains(scalar), bytes[index...].starts(with: "\\u".utf8) {
                        let save = index
                        index += 2
                        let low = try parseHex4()
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = save
                        }
                    }
                    let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    output += Array(String(Character(character)).utf8)
                default: throw fail("invalid escape \\\(Character(Unicode.Scalar(escaped)))")
                }
            case 0..<0x20:
                throw fail("unescaped control character in a string")
            default:
                output.append(byte)
            }
        }
    }

    private mutating func parseHex4() throws(RemoteError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[index..<(index + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    /// RFC 8259 §6: `-? int frac? exp?`, kept as text.
    private mutating func parseNumber() throws(RemoteError) -> String {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw fail("invalid number") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw fail("invalid fraction") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw fail("invalid exponent") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        guard index - start <= 64 else { throw fail("a number of \(index - start) characters") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(RemoteError) {
        guard peek() == byte else { throw fail("expected '\(Character(Unicode.Scalar(byte)))' at offset \(index)") }
        index += 1
    }

    private mutating func expectLiteral(_ literal: String) throws(RemoteError) {
        let literalBytes = Array(literal.utf8)
        guard bytes[index...].starts(with: literalBytes) else { throw fail("invalid literal at offset \(index)") }
        index += literalBytes.count
    }

    private func fail(_ reason: String) -> RemoteError {
        RemoteError(.malformedResponse, "the response is not valid JSON: \(reason)")
    }
}
