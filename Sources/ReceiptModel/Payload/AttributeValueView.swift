/// An attribute's value read in place: offsets into a buffer of the record's bytes that is valid only during a walk
/// (``AttributeWalker/walk(_:fastPath:wanted:fast:general:)``).
///
/// For the primitive shape Apple writes (one universal element with a short or one-/two-octet length filling the
/// value) it reads strings, integers and dates without making a slice, a retained reference, per attribute. For
/// any other shape it answers `nil`, and the caller reads the attribute the general way (``ReceiptAttribute``'s
/// `inner…` readers), which also says what is wrong with it.
struct AttributeValueView {
    let buffer: UnsafeBufferPointer<UInt8>
    /// The value's offsets in `buffer`.
    let value: Range<Int>

    /// The tag and content offsets when the value is one primitive element with a short or one-/two-octet definite
    /// length that fills it exactly; `nil` otherwise.
    @inline(__always)
    func primitive() -> (tag: UInt8, content: Range<Int>)? {
        let start = value.lowerBound
        guard value.count >= 2 else { return nil }
        let tag = buffer[start]
        guard tag & 0x3F == tag, tag & 0x1F != 0x1F else { return nil }  // universal, primitive, low number
        let first = buffer[start + 1]
        let contentStart: Int
        let length: Int
        switch first {
        case 0..<0x80: (contentStart, length) = (start + 2, Int(first))
        case 0x81 where value.count >= 3: (contentStart, length) = (start + 3, Int(buffer[start + 2]))
        case 0x82 where value.count >= 4:
            (contentStart, length) = (start + 4, Int(buffer[start + 2]) << 8 | Int(buffer[start + 3]))
        default: return nil
        }
        guard contentStart + length == value.upperBound else { return nil }
        return (tag, contentStart..<value.upperBound)
    }

    /// The content offsets of a primitive string (``ReceiptAttribute/isStringTag(_:)``), empty for the empty string.
    func string() -> Range<Int>? {
        guard let (tag, content) = primitive(), ReceiptAttribute.isStringTag(tag) else { return nil }
        return content
    }

    /// A primitive INTEGER of one to eight content octets.
    func integer() -> Int64? {
        guard let (tag, content) = primitive(), tag == 0x02, (1...8).contains(content.count) else { return nil }
        var result: UInt64 = buffer[content.lowerBound] & 0x80 == 0 ? 0 : UInt64.max
        for index in content { result = result << 8 | UInt64(buffer[index]) }
        return Int64(bitPattern: result)
    }

    /// An INTEGER 0 or 1.
    func boolean() -> Bool? {
        switch integer() {
        case 0: false
        case 1: true
        default: nil
        }
    }

    /// The date of a primitive RFC 3339 string: `.some(nil)` for the empty string (absent); `nil` when the value is
    /// not such a string or does not parse.
    func date() -> ReceiptDate?? {
        guard let text = string() else { return nil }
        if text.isEmpty { return .some(nil) }
        guard let date = ReceiptDate(rfc3339: UnsafeBufferPointer(rebasing: buffer[text])) else { return nil }
        return .some(date)
    }
}
