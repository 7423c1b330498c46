/// The package's one JSON reader (RFC 8259): strict, bounded, never trapping. Every index is checked,
/// nesting stops at ``maximumDepth``, numbers at 64 characters, and any violation is a ``Failure`` that
/// callers turn into their own typed error (`remote.malformed_response`, `server.invalid_json`).
///
/// Two ways to read the one top-level object a body must be:
/// - ``topLevelMembers()``: every value as a ``JSONValue`` tree, each member with the byte range its value
///   occupies, so a member (Apple's `receipt`) can be passed on byte for byte;
/// - ``flatMembers()``: for requests, whose one large member is a base64 string: strings stay UTF-8 bytes
///   (no `String` of 100 KB, and no copy when it has no escapes: a slice of the input), objects and arrays
///   are checked and reported only as ``Scalar/composite``.
package struct JSONReader {
    /// Why the bytes are not the JSON expected, in words (with the offset where it helps).
    package struct Failure: Error, Sendable {
        package let reason: String
    }

    /// One top-level member with its value and the byte range of that value in the input.
    package struct Member {
        package let key: String
        package let value: JSONValue
        package let range: Range<Int>
    }

    /// A top-level member's value as ``flatMembers()`` reads it.
    package enum Scalar: Sendable, Equatable {
        /// A string, unescaped, as UTF-8 bytes: a slice of the input when it has no escapes (a request's base64).
        case string(ArraySlice<UInt8>)
        /// A number, as its JSON text.
        case number(String)
        case bool(Bool)
        case null
        /// An object or an array: checked, not kept.
        case composite
    }

    /// The deepest nesting accepted (the top-level object is depth 0).
    package let maximumDepth: Int
    /// The longest number accepted, in characters.
    package static let maximumNumberLength = 64

    private let bytes: [UInt8]
    private var index = 0

    package init(_ bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// Reads a document that must be one object, keeping each member's value and its byte range.
    package mutating func topLevelMembers() throws(Failure) -> [Member] {
        try topLevelObject { (reader: inout JSONReader, key: String) throws(Failure) -> Member in
            let start = reader.index
            let value = try reader.value(depth: 1)
            return Member(key: key, value: value, range: start..<reader.index)
        }
    }

    /// Reads a document that must be one object, strings as bytes and nested values only checked.
    package mutating func flatMembers() throws(Failure) -> [(key: String, value: Scalar)] {
        try topLevelObject { (reader: inout JSONReader, key: String) throws(Failure) -> (key: String, value: Scalar) in
            (key, try reader.scalar())
        }
    }

    /// Reads a whole document holding any one value.
    package mutating func document() throws(Failure) -> JSONValue {
        skipWhitespace()
        let value = try value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw fail("trailing bytes after the JSON value") }
        return value
    }

    // MARK: - Structure

    private mutating func topLevelObject<Read>(
        _ readMember: (inout JSONReader, String) throws(Failure) -> Read
    ) throws(Failure) -> [Read] {
        skipWhitespace()
        guard peek() == UInt8(ascii: "{") else { throw fail("the body is not a JSON object") }
        let members = try members(readMember)
        skipWhitespace()
        guard index == bytes.count else { throw fail("trailing bytes after the JSON object") }
        return members
    }

    /// The members of the object starting at `{`, each value read by `readMember`, through its `}`.
    private mutating func members<Read>(
        _ readMember: (inout JSONReader, String) throws(Failure) -> Read
    ) throws(Failure) -> [Read] {
        index += 1
        var members: [Read] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return members
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try text(try string())
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            members.append(try readMember(&self, key))
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"))
            return members
        }
    }

    /// A top-level member's value in flat mode, as the server's request reader always read it: nested
    /// objects and arrays are skipped without keeping anything (their first level counts as depth 2), and
    /// numbers are not length-capped (the body's size bounds them).
    private mutating func scalar() throws(Failure) -> Scalar {
        switch peek() {
        case UInt8(ascii: "\"")?: return .string(try string())
        case UInt8(ascii: "{")?, UInt8(ascii: "[")?:
            try skip(depth: 2)
            return .composite
        case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?: return .number(try number(capped: false))
        default:
            switch try value(depth: 1) {
            case .bool(let flag): return .bool(flag)
            default: return .null
            }
        }
    }

    /// Checks one value and moves past it, keeping nothing, so a large nested member costs one pass and no
    /// allocation. `depth` is the depth an object or array here would have.
    private mutating func skip(depth: Int) throws(Failure) {
        guard let byte = peek() else { throw fail("the body ends inside a value") }
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth <= maximumDepth else { throw fail("nested deeper than \(maximumDepth)") }
            let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            skipWhitespace()
            if peek() == close {
                index += 1
                return
            }
            while true {
                skipWhitespace()
                if close == UInt8(ascii: "}") {
                    guard peek() == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                    _ = try string(keeping: false)
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"))
                    skipWhitespace()
                }
                try skip(depth: depth + 1)
                skipWhitespace()
                if peek() == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect(close)
                return
            }
        case UInt8(ascii: "\""): _ = try string(keeping: false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try number(capped: false)
        default: _ = try value(depth: 0)  // a literal
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= maximumDepth else { throw fail("nested deeper than \(maximumDepth)") }
        guard let byte = peek() else { throw fail("the body ends inside a value") }
        switch byte {
        case UInt8(ascii: "{"): return .object(try object(depth: depth))
        case UInt8(ascii: "["): return .array(try array(depth: depth))
        case UInt8(ascii: "\""): return .string(try text(try string()))
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number(capped: true))
        default: throw fail("unexpected character at offset \(index)")
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONObject {
        JSONObject(
            members: try members { (reader: inout JSONReader, key: String) throws(Failure) -> JSONObject.Member in
                JSONObject.Member(key: key, value: try reader.value(depth: depth + 1))
            })
    }

    private mutating func array(depth: Int) throws(Failure) -> [JSONValue] {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return elements
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"))
            return elements
        }
    }

    // MARK: - Tokens

    /// `bytes` as a `String`, exactly: bytes that are not UTF-8 are refused, never repaired into U+FFFD (two
    /// different inputs must never read as one).
    private func text(_ bytes: ArraySlice<UInt8>) throws(Failure) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw fail("a string that is not UTF-8") }
        return text
    }

    /// RFC 8259 §7, as UTF-8 bytes: `\u` escapes with surrogate pairs; a lone surrogate escape is refused (it
    /// stands for no character, and repairing it would make two inputs one).
    /// A string without escapes (every base64 string) is one scan and no copy: a slice of the input. Without
    /// `keeping`, only checked (an empty result).
    private mutating func string(keeping: Bool = true) throws(Failure) -> ArraySlice<UInt8> {
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string at offset \(index)") }
        index += 1
        let start = index
        // The run before the first quote, backslash or control character, found over the raw buffer: a request's
        // receipt-data is one such run of several kilobytes.
        index = bytes.withUnsafeBufferPointer { buffer in
            var position = start
            // Sixteen, then eight bytes at a time while none of them can end the run, then byte by byte.
            if let base = buffer.baseAddress {
                while position + 16 <= buffer.count {
                    let first = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
                    let second = UnsafeRawPointer(base + position + 8).loadUnaligned(as: UInt64.self)
                    guard !Self.mayEndPlainRun(first), !Self.mayEndPlainRun(second) else { break }
                    position += 16
                }
                while position + 8 <= buffer.count {
                    let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
                    guard !Self.mayEndPlainRun(word) else { break }
                    position += 8
                }
            }
            while position < buffer.count {
                let byte = buffer[position]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                position += 1
            }
            return position
        }
        if let byte = peek(), byte < 0x20 { throw fail("control character inside a string") }
        if peek() == UInt8(ascii: "\"") {
            index += 1
            return keeping ? bytes[start..<(index - 1)] : []
        }
        var output = keeping ? Array(bytes[start..<index]) : []
        while true {
            guard let byte = peek() else { throw fail("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return output[...]
            case UInt8(ascii: "\\"):
                guard let escaped = peek() else { throw fail("unterminated string") }
                index += 1
                if !keeping {
                    if escaped == UInt8(ascii: "u") {
                        _ = try unicodeEscape()
                    } else if !Self.simpleEscapes.contains(escaped) {
                        throw fail("invalid escape in a string")
                    }
                    continue
                }
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(escaped)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"): output += try unicodeEscape()
                default: throw fail("invalid escape in a string")
                }
            case 0..<0x20:
                throw fail("control character inside a string")
            default:
                if keeping { output.append(byte) }
            }
        }
    }

    /// Whether any byte of `word` is a quote, a backslash or below 0x20: the bytes that end a string's plain run.
    /// Exact in the "none" direction, which is the one relied on: a word for which this is `false` holds none.
    @inline(__always)
    static func mayEndPlainRun(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // Some byte is below n (n <= 0x80) exactly when (word - n * ones) & ~word has a high bit set
        // (bit-twiddling's "hasless"). The three tests' high bits are joined before one comparison: one branch.
        func byteBelow(_ value: UInt64, _ n: UInt64) -> UInt64 { (value &- ones &* n) & ~value }
        // A byte equal to b becomes zero after XOR with b in every byte: below 1.
        let found = byteBelow(word, 0x20) | byteBelow(word ^ (ones &* 0x22), 1) | byteBelow(word ^ (ones &* 0x5C), 1)
        return found & highs != 0
    }

    /// The escapes that stand for one byte: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`.
    private static let simpleEscapes: Set<UInt8> = Set("\"\\/bfnrt".utf8)

    /// The UTF-8 bytes of one `\uXXXX` escape (after `\u`), joined with the low surrogate that must follow a high
    /// one. A high surrogate without its low one, or a low one alone, is refused.
    private mutating func unicodeEscape() throws(Failure) -> [UInt8] {
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar) {
            guard bytes[index...].starts(with: "\\u".utf8) else { throw fail("a lone surrogate escape") }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone surrogate escape") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let character = Unicode.Scalar(scalar) else { throw fail("a lone surrogate escape") }
        return Array(String(Character(character)).utf8)
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw fail("truncated \\u escape") }
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

    /// RFC 8259 §6: `-? int frac? exp?`, kept as text; at most ``maximumNumberLength`` characters when `capped`.
    private mutating func number(capped: Bool) throws(Failure) -> String {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw fail("invalid number") }
        if first == UInt8(ascii: "0") {
            index += 1
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw fail("invalid number") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw fail("invalid number") }
            skipDigits()
        }
        guard !capped || index - start <= Self.maximumNumberLength else {
            throw fail("a number of \(index - start) characters")
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard peek() == byte else { throw fail("expected '\(Character(Unicode.Scalar(byte)))' at offset \(index)") }
        index += 1
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let matches = word.withUTF8Buffer { bytes[index...].starts(with: $0) }
        guard matches else { throw fail("invalid literal") }
        index += word.utf8CodeUnitCount
    }

    private func fail(_ reason: String) -> Failure { Failure(reason: reason) }
}
