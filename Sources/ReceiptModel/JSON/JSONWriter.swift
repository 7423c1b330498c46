/// Appends compact JSON to a byte buffer, with keys in exactly the order they are written.
///
/// verifyReceipt's JSON has a fixed key order and string formats; writing it directly is both
/// simpler to keep exact and several times faster than building dictionaries for an encoder.
@_spi(Fuzzing) public struct JSONWriter: Sendable {
    /// The JSON written so far (UTF-8).
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false
    /// The dates written last, for ``AppleReceiptJSON/writeDate(_:_:_:_:to:)`` to copy when they come again.
    var recentDates = RecentDates()

    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// The JSON written so far as a string.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func beginObject() {
        punctuation(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func beginArray() {
        punctuation(UInt8(ascii: "["))
        needsComma = false
    }

    package mutating func endArray() {
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
        let comma = needsComma
        appendChunk(capacity: name.utf8CodeUnitCount + 4) { chunk in
            if comma { chunk.put(UInt8(ascii: ",")) }
            chunk.putKey(name)
        }
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    /// Writes UTF-8 bytes as a JSON string; invalid UTF-8 is repaired with U+FFFD.
    public mutating func string(utf8 value: ArraySlice<UInt8>) {
        if Self.isPlainASCII(value) {
            members(capacity: value.count + 2) { chunk in chunk.putQuoted(plainASCII: value) }
            return
        }
        guard value.allSatisfy({ $0 < 0x80 }) else {
            string(String(decoding: value, as: UTF8.self))
            return
        }
        separate()
        appendQuotedASCII(value)
        needsComma = true
    }

    /// `"name":"value"` in one append when the value is plain ASCII (as product and transaction ids are),
    /// else as ``key(_:)-(StaticString)`` and ``string(utf8:)``.
    mutating func field(_ name: StaticString, utf8 value: ArraySlice<UInt8>) {
        guard Self.isPlainASCII(value) else {
            key(name)
            string(utf8: value)
            return
        }
        members(capacity: name.utf8CodeUnitCount + 3 + value.count + 2) { chunk in
            chunk.putKey(name)
            chunk.putQuoted(plainASCII: value)
        }
    }

    /// `true` when every byte is printable ASCII that JSON writes as it is: no control character, no
    /// quote, no backslash, nothing past 0x7F.
    static func isPlainASCII(_ value: ArraySlice<UInt8>) -> Bool {
        value.withUnsafeBufferPointer { bytes in
            var plain = true
            for byte in bytes {
                plain = plain && byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
            }
            return plain
        }
    }

    public mutating func number(_ value: Int64) {
        let comma = needsComma
        appendChunk(capacity: 21 + 1) { chunk in
            if comma { chunk.put(UInt8(ascii: ",")) }
            chunk.putDecimal(value)
        }
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
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

    /// Makes the next value start without a separator, as the first of a container's would: for writing
    /// values that stand alone one after another (``RenderedPurchases``).
    mutating func startWithoutSeparator() {
        needsComma = false
    }

    /// Writes one or more members (or array elements) that `fill` writes whole, separators between them
    /// included, as the next value: up to `capacity` bytes in one append. For the fixed-format runs that make
    /// up most of a receipt's JSON, such as a date's three keys (see ``OutputChunk``).
    mutating func members(capacity: Int, _ fill: (inout OutputChunk) -> Void) {
        let comma = needsComma
        appendChunk(capacity: capacity + 1) { chunk in
            if comma { chunk.put(UInt8(ascii: ",")) }
            fill(&chunk)
        }
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

    /// `byte` after the separator the position needs: one append for both.
    private mutating func punctuation(_ byte: UInt8) {
        if needsComma {
            appendChunk(capacity: 2) { chunk in
                chunk.put(UInt8(ascii: ","))
                chunk.put(byte)
            }
        } else {
            bytes.append(byte)
        }
    }

    /// Lets `fill` write up to `capacity` bytes straight into the buffer's spare capacity (grown geometrically
    /// as `append` grows it), with no copy and no per-byte check of the array.
    @inline(__always)
    private mutating func appendChunk(capacity: Int, _ fill: (inout OutputChunk) -> Void) {
        Self.append(capacity: capacity, to: &bytes, fill)
    }

    /// ``appendChunk(capacity:_:)`` for any byte array.
    @inline(__always)
    static func append(capacity: Int, to bytes: inout [UInt8], _ fill: (inout OutputChunk) -> Void) {
        bytes.append(addingCapacity: capacity) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                guard let base = buffer.baseAddress else { return }
                var chunk = OutputChunk(base: base + initialized, capacity: buffer.count - initialized)
                fill(&chunk)
                initialized += chunk.count
            }
        }
    }

    private mutating func appendQuoted(_ value: String) {
        var value = value
        value.withUTF8 { appendQuotedASCII($0[...]) }
    }

    /// Quotes UTF-8 bytes, escaping `"`, `\` and control characters (RFC 8259 §7). Bytes of
    /// multi-byte characters pass through unchanged, so valid UTF-8 stays valid. Text with nothing to
    /// escape, nearly all of it, is copied in one append.
    private mutating func appendQuotedASCII(_ value: some Collection<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        if value.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: value)
        } else {
            for byte in value { appendEscaped(byte) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
        case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
        case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
        case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
        case 0..<0x20:
            let hexDigits: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: #"\u00"#.utf8)
            bytes.append(hexDigits.utf8Start[Int(byte >> 4)])
            bytes.append(hexDigits.utf8Start[Int(byte & 0x0F)])
        default: bytes.append(byte)
        }
    }

    /// Appends the decimal digits of `value` (with a leading `-` when negative) without creating a `String`.
    package static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
        append(capacity: 21, to: &bytes) { $0.putDecimal(value) }
    }
}
