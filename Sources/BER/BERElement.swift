/// One BER element (tag, length, value) as slices of the caller's bytes; nothing is copied.
@_spi(Fuzzing) public struct BERElement: Sendable {
    /// The element's identifier.
    public let tag: BERTag
    /// The whole encoding: identifier, length, contents, and the end-of-contents octets of an
    /// indefinite-length element.
    public let encoded: ArraySlice<UInt8>
    /// The contents octets; for an indefinite length, without the closing end-of-contents octets.
    public let content: ArraySlice<UInt8>
    /// `true` when the length octet was `0x80` (X.690 §8.1.3.6).
    public let isIndefiniteLength: Bool
    /// How many constructed elements enclose this one (0 at the top level).
    public let depth: Int
    /// The limits of the reader that produced this element, inherited by readers of its children.
    public let limits: BERLimits
    /// The recorded ends of the indefinite-length elements below this one (shared, never copied; `.none`
    /// for a definite length, as nothing inside it was scanned), and the entry of its first indefinite child:
    /// what the reader of its children starts with.
    @usableFromInline let childEnds: IndefiniteEnds
    @usableFromInline let childCursor: Int

    @inlinable
    init(
        tag: BERTag, encoded: ArraySlice<UInt8>, content: ArraySlice<UInt8>, isIndefiniteLength: Bool, depth: Int,
        limits: BERLimits, childEnds: IndefiniteEnds, childCursor: Int
    ) {
        self.tag = tag
        self.encoded = encoded
        self.content = content
        self.isIndefiniteLength = isIndefiniteLength
        self.depth = depth
        self.limits = limits
        self.childEnds = childEnds
        self.childCursor = childCursor
    }

    /// Where the element starts in the input.
    @inlinable
    public var offset: Int { encoded.startIndex }

    /// A reader over this element's children.
    /// - Throws: ``BERError/Code/unexpectedTag`` for a primitive element, or
    ///   ``BERError/Code/depthExceeded`` past ``BERLimits/maximumDepth``.
    @inlinable
    public func children() throws(BERError) -> BERReader {
        guard tag.isConstructed else {
            throw BERError(.unexpectedTag, "expected a constructed element, found \(tag)", at: offset)
        }
        guard depth + 1 <= limits.maximumDepth else {
            throw BERError(.depthExceeded, "nesting exceeds \(limits.maximumDepth) levels", at: offset)
        }
        return BERReader(content, limits: limits, depth: depth + 1, ends: childEnds, cursor: childCursor)
    }

    /// Throws ``BERError/Code/unexpectedTag`` unless the element's tag is `expected`.
    @inlinable
    public func expectTag(_ expected: BERTag) throws(BERError) {
        guard tag == expected else {
            throw BERError(.unexpectedTag, "expected \(expected), found \(tag)", at: offset)
        }
    }
}

extension BERElement {
    /// The value of a primitive INTEGER (X.690 §8.3) as a signed 64-bit number.
    /// - Throws: ``BERError/Code/invalidInteger`` or ``BERError/Code/integerOverflow``.
    @inlinable
    public func integerValue() throws(BERError) -> Int64 {
        guard tag == .integer else {
            throw BERError(.unexpectedTag, "expected INTEGER, found \(tag)", at: offset)
        }
        return try Self.integer(fromTwosComplement: content, at: offset)
    }

    /// Reads big-endian two's complement content octets into an `Int64`.
    @inlinable
    static func integer(fromTwosComplement bytes: ArraySlice<UInt8>, at offset: Int) throws(BERError) -> Int64 {
        guard let first = bytes.first else {
            throw BERError(.invalidInteger, "INTEGER has no content octets", at: offset)
        }
        var significant = bytes
        // A leading 0x00 (or 0xFF) that only carries the sign does not count against the 8 octets.
        while significant.count > 8, let lead = significant.first,
            lead == (first & 0x80 == 0 ? 0x00 : 0xFF),
            let next = significant.dropFirst().first, (next & 0x80) == (first & 0x80)
        {
            significant = significant.dropFirst()
        }
        guard significant.count <= 8 else {
            throw BERError(.integerOverflow, "INTEGER of \(bytes.count) octets exceeds 64 bits", at: offset)
        }
        var value: UInt64 = first & 0x80 == 0 ? 0 : UInt64.max
        for byte in significant { value = (value << 8) | UInt64(byte) }
        return Int64(bitPattern: value)
    }

    /// The value of an OBJECT IDENTIFIER, validated as base-128 arcs (X.690 §8.19).
    public func objectIdentifierValue() throws(BERError) -> ASN1ObjectIdentifier {
        guard tag == .objectIdentifier else {
            throw BERError(.unexpectedTag, "expected OBJECT IDENTIFIER, found \(tag)", at: offset)
        }
        guard let identifier = ASN1ObjectIdentifier(encodedArcs: content) else {
            throw BERError(.invalidObjectIdentifier, "malformed OBJECT IDENTIFIER arcs", at: offset)
        }
        return identifier
    }

    /// The octets of a string-like element (OCTET STRING, UTF8String, IA5String, …) whose tag,
    /// ignoring the constructed bit, is `expected`.
    ///
    /// A primitive element returns its content slice. A constructed one (BER segments, X.690
    /// §8.7.3) is joined into one new array: the only copy the reader makes, because segments are
    /// not contiguous in the input.
    @inlinable
    public func stringBytes(expecting expected: BERTag) throws(BERError) -> ArraySlice<UInt8> {
        guard tag.matchesIgnoringForm(expected) else {
            throw BERError(.unexpectedTag, "expected \(expected.primitive), found \(tag)", at: offset)
        }
        guard tag.isConstructed else { return content }
        return try joinedSegments(expecting: expected)
    }

    /// Joins the segments of a constructed string (the slow, copying path of ``stringBytes(expecting:)``).
    @usableFromInline
    func joinedSegments(expecting expected: BERTag) throws(BERError) -> ArraySlice<UInt8> {
        var joined: [UInt8] = []
        joined.reserveCapacity(content.count)
        var segments = 0
        try appendSegments(of: self, matching: expected, into: &joined, count: &segments)
        return joined[...]
    }

    private func appendSegments(
        of element: BERElement, matching expected: BERTag, into joined: inout [UInt8], count: inout Int
    ) throws(BERError) {
        var reader = try element.children()
        while let segment = try reader.next() {
            guard segment.tag.matchesIgnoringForm(expected) else {
                throw BERError(.unexpectedTag, "string segment has tag \(segment.tag)", at: segment.offset)
            }
            count += 1
            guard count <= limits.maximumStringSegments else {
                throw BERError(.tooManySegments, "more than \(limits.maximumStringSegments) segments", at: offset)
            }
            if segment.tag.isConstructed {
                try appendSegments(of: segment, matching: expected, into: &joined, count: &count)
            } else {
                joined.append(contentsOf: segment.content)
            }
        }
    }
}
