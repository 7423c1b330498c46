/// Appends compact JSON to a byte buffer, with keys in exactly the order they are written.
///
/// verifyReceipt's JSON has a fixed key order and string formats; writing it directly is both
/// simpler to keep exact and several times faster than building dictionaries for an encoder.
public struct JSONWriter: Sendable {
    /// The JSON written so far (UTF-8).
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// The JSON written so far as a string.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object key; the next value written belongs to it.
    public mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes an object key given as a literal, without creating a `String`.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma = false
    }

    /// Writes a string value whose characters `write` appends directly to the buffer. The caller
    /// guarantees they need no escaping (digits, ASCII letters, spaces, `-`, `:`, `/`, `+`, `=`).
    public mutating func string(_ write: (inout [UInt8]) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        write(&bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    /// Writes UTF-8 bytes as a JSON string; invalid UTF-8 is repaired with U+FFFD.
    public mutating func string(utf8 value: ArraySlice<UInt8>) {
        guard value.allSatisfy({ $0 < 0x80 }) else {
            string(String(decoding: value, as: UTF8.self))
            return
        }
        separate()
        appendQuotedASCII(value)
        needsComma = true
    }

    public mutating func number(_ value: Int64) {
        separate()
        appendDecimal(value)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
        needsComma = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Writes a value that is already valid JSON.
    public mutating func raw(_ json: some Collection<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    // MARK: - Key/value shorthands

    public mutating func field(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    public mutating func field(_ name: String, _ value: Int64) {
        key(name)
        number(value)
    }

    public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func field(_ name: String, utf8 value: ArraySlice<UInt8>) {
        key(name)
        string(utf8: value)
    }

    // MARK: - Encoding

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendQuoted(_ value: String) {
        var value = value
        value.withUTF8 { appendQuotedASCII($0[...]) }
    }

    /// Quotes UTF-8 bytes, escaping `"`, `\` and control characters (RFC 8259 §7). Bytes of
    /// multi-byte characters pass through unchanged, so valid UTF-8 stays valid.
    private mutating func appendQuotedASCII(_ value: some Collection<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hexDigits = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendDecimal(_ value: Int64) {
        Self.appendDecimal(value, to: &bytes)
    }

    /// Appends the decimal digits of `value` (with a leading `-` when negative) without creating a `String`.
    public static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var divisor: UInt64 = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        }
    }
}
