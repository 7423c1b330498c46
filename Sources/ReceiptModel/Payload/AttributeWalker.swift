@_spi(Fuzzing) import BER

/// Walks a `SET OF ReceiptAttribute` and hands each attribute to a closure, fast.
///
/// Receipts are almost always plain DER inside the payload: short or one-to-three-octet definite
/// lengths and primitive strings. For that shape the walk reads the bytes through a raw pointer and
/// creates one slice per attribute (its value), instead of a dozen reference-counted slices for the
/// generic reader's elements, which dominated decode time. An attribute outside that shape
/// (indefinite lengths, segmented strings, high tag numbers, or anything malformed) is read by
/// ``BERReader`` from its start, so unusual encodings decode exactly as before and malformed ones
/// throw exactly the reader's errors; the walk goes on in place after it.
enum AttributeWalker {
    /// Calls `body` with every attribute of the SET's content that `wanted` accepts, in order. Every attribute is
    /// read and checked alike; one that is not wanted costs no slice (a retained reference) to hand over.
    /// - Parameter fastPath: `false` reads everything with the general reader (the reference the
    ///   fast path is tested against).
    static func forEach(
        inSetContent content: ArraySlice<UInt8>, fastPath: Bool = true, where wanted: (Int64) -> Bool = { _ in true },
        _ body: (ReceiptAttribute) throws -> Void
    ) throws {
        // `buffer` starts at `content.startIndex`; the offsets convert back to indices from there.
        let base = content.startIndex
        try walk(
            content, fastPath: fastPath, wanted: wanted,
            fast: { type, version, _, value in
                try body(
                    ReceiptAttribute(
                        type: type, version: version,
                        value: content[(base + value.lowerBound)..<(base + value.upperBound)]))
            },
            general: body)
    }

    /// The same walk, handing `body` each wanted attribute's value as a pointer into the receipt's bytes that is
    /// valid only during the call: for a renderer, which copies the bytes out and keeps nothing.
    @inline(__always)
    static func forEachUnsafe(
        inSetContent content: ArraySlice<UInt8>, fastPath: Bool = true, where wanted: (Int64) -> Bool,
        _ body: (_ type: Int64, _ version: Int64, _ value: UnsafeBufferPointer<UInt8>) throws -> Void
    ) throws {
        try walk(
            content, fastPath: fastPath, wanted: wanted,
            fast: { type, version, buffer, value in
                try body(type, version, UnsafeBufferPointer(rebasing: buffer[value]))
            },
            general: { attribute in
                try attribute.value.withUnsafeBufferPointer { try body(attribute.type, attribute.version, $0) }
            })
    }

    /// The walk the other entry points make, for a caller that reads values in place. For the plain-DER shape,
    /// `fast` gets the attribute's type, version, the content's buffer (valid only during the call) and its value's
    /// offsets in that buffer (offset 0 is `content.startIndex`); an attribute outside that shape is read by the
    /// general reader and handed to `general`, and the walk goes on in place after it. (Handing the whole rest to the
    /// general reader let one BER-only attribute at the front make every later one cost a `BERElement`.)
    /// `fastPath: false` reads every attribute the general way: the reference the fast path is tested against.
    @inline(__always)
    static func walk(
        _ content: ArraySlice<UInt8>, fastPath: Bool = true, wanted: (Int64) -> Bool,
        fast: (_ type: Int64, _ version: Int64, _ buffer: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) throws
            -> Void,
        general: (ReceiptAttribute) throws -> Void
    ) throws {
        guard fastPath else {
            var reader = BERReader(content)
            while let element = try reader.next() {
                let attribute = try ReceiptAttribute(berElement: element)
                if wanted(attribute.type) { try general(attribute) }
            }
            return
        }
        var offset = 0
        while offset < content.count {
            // The plain-DER attributes from `offset` on, read in place; where the first other one starts, if any.
            let unusual: Int? = try content.withUnsafeBufferPointer { buffer in
                var at = offset
                while at < buffer.count {
                    guard let sequence = header(buffer, at: at, end: buffer.count), sequence.tag == 0x30,
                        let typeField = header(buffer, at: sequence.contentStart, end: sequence.contentEnd),
                        typeField.tag == 0x02, let type = integer(buffer, typeField),
                        let versionField = header(buffer, at: typeField.contentEnd, end: sequence.contentEnd),
                        versionField.tag == 0x02, let version = integer(buffer, versionField),
                        let valueField = header(buffer, at: versionField.contentEnd, end: sequence.contentEnd),
                        valueField.tag == 0x04, valueField.contentEnd == sequence.contentEnd
                    else { return at }
                    if wanted(type) {
                        try fast(type, version, buffer, valueField.contentStart..<valueField.contentEnd)
                    }
                    at = sequence.contentEnd
                }
                return nil
            }
            guard let unusual else { return }
            // That one attribute the general way (which also says what is wrong with it), then in place again.
            var reader = BERReader(content[(content.startIndex + unusual)...])
            // Bytes remain at `unusual`, so this reads an element or throws; `nil` would only mean the end.
            guard let element = try reader.next() else { return }
            let attribute = try ReceiptAttribute(berElement: element)
            if wanted(attribute.type) { try general(attribute) }
            offset = reader.currentOffset - content.startIndex
        }
    }

    /// The TLV header at `offset`, when it has a low tag number and a definite length of at most
    /// three octets that fits before `end`; `nil` otherwise (the general reader decides then).
    @inline(__always)
    static func header(
        _ buffer: UnsafeBufferPointer<UInt8>, at offset: Int, end: Int
    ) -> (tag: UInt8, contentStart: Int, contentEnd: Int)? {
        guard end - offset >= 2 else { return nil }
        let tag = buffer[offset]
        guard tag & 0x1F != 0x1F else { return nil }
        let first = buffer[offset + 1]
        var start = offset + 2
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let octets = Int(first & 0x7F)
            // 0x80 (indefinite) and lengths past 16 MiB go to the general reader.
            guard octets >= 1, octets <= 3, end - start >= octets else { return nil }
            for _ in 0..<octets {
                length = length << 8 | Int(buffer[start])
                start += 1
            }
        }
        guard length <= end - start else { return nil }
        return (tag, start, start + length)
    }

    /// A primitive INTEGER of one to eight content octets, sign-extended; `nil` otherwise.
    @inline(__always)
    static func integer(
        _ buffer: UnsafeBufferPointer<UInt8>, _ field: (tag: UInt8, contentStart: Int, contentEnd: Int)
    ) -> Int64? {
        let count = field.contentEnd - field.contentStart
        guard count >= 1, count <= 8 else { return nil }
        var value: UInt64 = buffer[field.contentStart] & 0x80 == 0 ? 0 : UInt64.max
        for index in field.contentStart..<field.contentEnd { value = value << 8 | UInt64(buffer[index]) }
        return Int64(bitPattern: value)
    }
}
