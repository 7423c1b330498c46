@_spi(Fuzzing) package import BER

/// One attribute of the receipt payload or of an in-app purchase record:
///
/// ```
/// ReceiptAttribute ::= SEQUENCE {
///   type INTEGER,
///   version INTEGER,
///   value OCTET STRING }
/// ```
///
/// `value` usually holds a DER-encoded UTF8String, IA5String or INTEGER; types 4 and 5 hold raw
/// bytes. Unknown types are kept exactly as received.
public struct ReceiptAttribute: Hashable, Sendable {
    public let type: Int64
    public let version: Int64
    /// The OCTET STRING's contents.
    public let value: ArraySlice<UInt8>

    public init(type: Int64, version: Int64, value: ArraySlice<UInt8>) {
        self.type = type
        self.version = version
        self.value = value
    }

    /// Decodes the SEQUENCE `element`.
    package init(berElement element: BERElement) throws(BERError) {
        try element.expectTag(.sequence)
        var fields = try element.children()
        type = try fields.read(expecting: .integer).integerValue()
        version = try fields.read(expecting: .integer).integerValue()
        value = try fields.readAny().stringBytes(expecting: .octetString)
        try fields.expectEnd()
    }

    /// Reads every attribute of an already validated `SET OF ReceiptAttribute` content. Used for
    /// the lazily computed attribute lists, whose bytes the decoder checked when it first read them,
    /// so the walk cannot fail (and would only end the list early if it did).
    static func all(inValidatedSet content: ArraySlice<UInt8>) -> [ReceiptAttribute] {
        var result: [ReceiptAttribute] = []
        try? AttributeWalker.forEach(inSetContent: content) { result.append($0) }
        return result
    }

    public static func == (lhs: ReceiptAttribute, rhs: ReceiptAttribute) -> Bool {
        lhs.type == rhs.type && lhs.version == rhs.version && lhs.value.elementsEqual(rhs.value)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        hasher.combine(version)
        for byte in value { hasher.combine(byte) }
    }
}

extension ReceiptAttribute {
    /// The bytes of the string inside `value` (UTF8String, IA5String, PrintableString or
    /// VisibleString, primitive or segmented), which must fill `value` exactly.
    func innerString() throws -> ArraySlice<UInt8> {
        if let (tag, content) = innerPrimitive(), Self.isStringTag(tag) { return content }
        var reader = BERReader(value)
        let element = try reader.readAny()
        try reader.expectEnd()
        let tag = element.tag.primitive
        guard tag == .utf8String || tag == .ia5String || tag == .printableString || tag == .visibleString else {
            throw ReceiptError(.invalidAttribute, "attribute \(type) holds \(element.tag), expected a string")
        }
        return try element.stringBytes(expecting: tag)
    }

    /// UTF8String, PrintableString, IA5String or VisibleString (primitive identifier octets).
    @inline(__always)
    static func isStringTag(_ tag: UInt8) -> Bool {
        tag == 0x0C || tag == 0x13 || tag == 0x16 || tag == 0x1A
    }

    /// The tag and content of `value` when it is one primitive element with a short or one-/two-octet
    /// definite length that fills `value` exactly, the shape Apple writes. Anything else returns
    /// `nil` and is left to the general reader, which also produces the right error.
    @inline(__always)
    func innerPrimitive() -> (UInt8, ArraySlice<UInt8>)? {
        let found = value.withUnsafeBufferPointer { buffer in
            AttributeValueView(buffer: buffer, value: 0..<buffer.count).primitive()
        }
        guard let (tag, content) = found else { return nil }
        return (tag, value[(value.startIndex + content.lowerBound)...])
    }

    /// The string inside `value`, `nil` when it is empty ("absent").
    func innerOptionalString() throws -> ArraySlice<UInt8>? {
        let bytes = try innerString()
        return bytes.isEmpty ? nil : bytes
    }

    /// The INTEGER inside `value`, which must fill `value` exactly.
    func innerInteger() throws -> Int64 {
        let simple = value.withUnsafeBufferPointer { buffer in
            AttributeValueView(buffer: buffer, value: 0..<buffer.count).integer()
        }
        if let simple { return simple }
        var reader = BERReader(value)
        let element = try reader.readAny()
        try reader.expectEnd()
        guard element.tag == .integer else {
            throw ReceiptError(.invalidAttribute, "attribute \(type) holds \(element.tag), expected INTEGER")
        }
        return try element.integerValue()
    }

    /// An INTEGER 0 or 1 inside `value`.
    func innerBoolean() throws -> Bool {
        switch try innerInteger() {
        case 0: return false
        case 1: return true
        case let other: throw ReceiptError(.invalidAttribute, "attribute \(type) holds \(other), expected 0 or 1")
        }
    }

    /// The RFC 3339 date inside `value`; `nil` for the empty string.
    func innerDate() throws -> ReceiptDate? {
        guard let text = try innerOptionalString() else { return nil }
        guard let date = ReceiptDate(rfc3339: text) else {
            throw ReceiptError(
                .invalidDate, "attribute \(type) holds \"\(String(decoding: text.prefix(64), as: UTF8.self))\"")
        }
        return date
    }
}

/// Remembers which single-valued attributes were seen, to reject repeats.
struct SeenAttributes {
    private var bits: UInt64 = 0

    /// Marks `type - base`; throws when it was already marked.
    mutating func insert(_ type: Int64, base: Int64) throws {
        let bit = UInt64(1) << UInt64(type - base)
        guard bits & bit == 0 else {
            throw ReceiptError(.duplicateAttribute, "attribute \(type) occurs more than once")
        }
        bits |= bit
    }
}

extension ArraySlice where Element == UInt8 {
    /// The bytes as a Swift string; invalid UTF-8 is repaired with U+FFFD.
    var utf8String: String { String(decoding: self, as: UTF8.self) }
}
