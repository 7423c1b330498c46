/// Reads consecutive BER elements from a byte slice without copying (X.690 §8.1).
///
/// Every length is checked against what remains of the enclosing element, nesting is capped by
/// ``BERLimits/maximumDepth``, and no input can make it trap: malformed bytes throw ``BERError``.
/// Definite and indefinite lengths are both accepted, because App Store receipts are BER with
/// indefinite-length outer structures. Reading is linear in the input whatever the nesting: the ends of
/// nested indefinite-length elements are found once, by the scan of the outermost one, and shared with the
/// readers of their children (``IndefiniteEnds``).
@_spi(Fuzzing) public struct BERReader: Sendable {
    @usableFromInline let bytes: ArraySlice<UInt8>
    @usableFromInline var position: Int
    @usableFromInline let depth: Int
    /// The limits this reader and the readers of its elements' children enforce.
    public let limits: BERLimits
    /// The ends of the indefinite-length elements among this reader's elements and below, when the scan of
    /// an enclosing element recorded them; `.none` otherwise.
    @usableFromInline var ends: IndefiniteEnds
    /// The entry of `ends` that records the next indefinite-length element this reader meets.
    @usableFromInline var cursor: Int

    /// A reader over `bytes` at the top level.
    @inlinable
    public init(_ bytes: ArraySlice<UInt8>, limits: BERLimits = .default) {
        self.init(bytes, limits: limits, depth: 0, ends: .none, cursor: 0)
    }

    @inlinable
    init(_ bytes: ArraySlice<UInt8>, limits: BERLimits, depth: Int, ends: IndefiniteEnds, cursor: Int) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.limits = limits
        self.depth = depth
        self.ends = ends
        self.cursor = cursor
    }

    /// `true` when every element has been read.
    @inlinable
    public var isAtEnd: Bool { position >= bytes.endIndex }

    /// The index in the input of the next unread byte.
    @inlinable
    public var currentOffset: Int { position }

    /// Reads the next element, or returns `nil` at the end of the input. Changes nothing when it throws.
    @inlinable
    public mutating func next() throws(BERError) -> BERElement? {
        guard position < bytes.endIndex else { return nil }
        let start = position
        let header = try Self.parseHeader(in: bytes, at: start)
        guard let contentEnd = header.contentEnd else {
            return try nextIndefinite(start: start, tag: header.tag, contentStart: header.contentStart)
        }
        position = contentEnd
        return BERElement(
            tag: header.tag, encoded: bytes[start..<contentEnd], content: bytes[header.contentStart..<contentEnd],
            isIndefiniteLength: false, depth: depth, limits: limits, childEnds: .none, childCursor: 0)
    }

    /// Reads the next element, which must exist and carry `tag`.
    @inlinable
    public mutating func read(expecting tag: BERTag) throws(BERError) -> BERElement {
        guard let element = try next() else {
            throw BERError(.missingElement, "expected \(tag), found the end of the enclosing element", at: position)
        }
        try element.expectTag(tag)
        return element
    }

    /// Reads the next element, which must exist, whatever its tag.
    @inlinable
    public mutating func readAny() throws(BERError) -> BERElement {
        guard let element = try next() else {
            throw BERError(.missingElement, "expected an element, found the end of the enclosing element", at: position)
        }
        return element
    }

    /// Reads the next element only if it carries `tag` (for OPTIONAL fields); otherwise reads nothing.
    ///
    /// The next element is parsed whole either way, so a malformed one throws here. Inside a scanned
    /// indefinite-length element that costs its header only.
    @inlinable
    public mutating func readIfPresent(_ tag: BERTag) throws(BERError) -> BERElement? {
        // `next()` changes nothing when it throws; when the tag differs, the position and cursor go back.
        let (savedPosition, savedCursor) = (position, cursor)
        guard let element = try next() else { return nil }
        guard element.tag == tag else {
            position = savedPosition
            cursor = savedCursor
            // An indefinite element scanned just now recorded its own end: keep the table, so reading the
            // element next does not scan it again (the cursor misses past it, and later elements scan as usual).
            if element.childCursor == 1, element.childEnds.entry(at: 0, startingAt: element.offset) != nil {
                ends = element.childEnds
                cursor = 0
            }
            return nil
        }
        return element
    }

    /// Throws ``BERError/Code/trailingBytes`` unless every byte has been read.
    @inlinable
    public func expectEnd() throws(BERError) {
        guard isAtEnd else {
            throw BERError(.trailingBytes, "\(bytes.endIndex - position) unexpected bytes", at: position)
        }
    }

    // MARK: - Parsing

    /// Reads the indefinite-length element whose header `next()` parsed (X.690 §8.1.3.6: constructed only,
    /// closed by 00 00). Its end comes from `ends` when the scan of an enclosing element recorded it (the
    /// entry at `cursor`, checked against its start), and from a scan of its own otherwise, which records
    /// the ends below it for its children. Changes nothing when it throws.
    @inlinable
    mutating func nextIndefinite(start: Int, tag: BERTag, contentStart: Int) throws(BERError) -> BERElement {
        let contentEnd: Int
        let childEnds: IndefiniteEnds
        let childCursor: Int
        if let entry = ends.entry(at: cursor, startingAt: start), entry.contentEnd >= contentStart,
            bytes.endIndex - entry.contentEnd >= 2
        {
            // Found without parsing anything below it again; its children's entries follow its own.
            contentEnd = entry.contentEnd
            (childEnds, childCursor) = (ends, cursor + 1)
            cursor = entry.next
        } else {
            let scan = try IndefiniteEnds.scan(
                in: bytes, start: start, contentStart: contentStart, depth: depth + 1, limits: limits)
            contentEnd = scan.contentEnd
            // Entry 0 is the element itself (when anything was recorded at all); its children's come after.
            (childEnds, childCursor) = (scan.ends, scan.ends.isEmpty ? 0 : 1)
        }
        let elementEnd = contentEnd + 2
        position = elementEnd
        return BERElement(
            tag: tag, encoded: bytes[start..<elementEnd], content: bytes[contentStart..<contentEnd],
            isIndefiniteLength: true, depth: depth, limits: limits, childEnds: childEnds, childCursor: childCursor)
    }

    /// Parses the identifier and length octets at `start` and checks the length against what remains.
    /// - Returns: the tag, where the contents start, and where they end (`nil` for an indefinite length).
    @inlinable
    static func parseHeader(
        in bytes: ArraySlice<UInt8>, at start: Int
    ) throws(BERError) -> (tag: BERTag, contentStart: Int, contentEnd: Int?) {
        #if DEBUG
            ParseMeter.countHeader()
        #endif
        let end = bytes.endIndex
        guard start < end else { throw BERError(.truncated, "input ends before a tag", at: start) }
        let tag: BERTag
        var index: Int
        if bytes[start] & 0x1F != 0x1F {
            // The low-tag-number form, one octet: every tag a receipt uses.
            tag = BERTag(identifier: bytes[start])
            index = start + 1
        } else {
            (tag, index) = try parseTag(in: bytes, at: start)
        }
        guard index < end else { throw BERError(.truncated, "input ends before the length octets", at: index) }
        let first = bytes[index]
        index += 1

        if first == 0x80 {
            guard tag.isConstructed else {
                throw BERError(.indefinitePrimitive, "primitive \(tag) with indefinite length", at: start)
            }
            return (tag, index, nil)
        }

        let length: Int
        if first < 0x80 {
            length = Int(first)
        } else {
            let octets = Int(first & 0x7F)
            guard first != 0xFF, octets <= 8 else {
                throw BERError(.invalidLength, "length uses \(octets) octets", at: index - 1)
            }
            guard end - index >= octets else {
                throw BERError(.truncated, "input ends inside the length octets", at: index)
            }
            var value: UInt64 = 0
            for _ in 0..<octets {
                value = (value << 8) | UInt64(bytes[index])
                index += 1
            }
            guard value <= UInt64(end - index) else {
                throw BERError(.lengthExceedsInput, "length \(value) exceeds the \(end - index) bytes left", at: start)
            }
            length = Int(value)
        }
        guard length <= end - index else {
            throw BERError(.lengthExceedsInput, "length \(length) exceeds the \(end - index) bytes left", at: start)
        }
        if tag == .endOfContents {
            throw BERError(.unexpectedEndOfContents, "end-of-contents outside an indefinite-length element", at: start)
        }
        return (tag, index, index + length)
    }

    /// Parses identifier octets, including the high-tag-number form (X.690 §8.1.2.4).
    @inlinable
    static func parseTag(in bytes: ArraySlice<UInt8>, at start: Int) throws(BERError) -> (BERTag, Int) {
        guard start < bytes.endIndex else { throw BERError(.truncated, "input ends before a tag", at: start) }
        let first = bytes[start]
        let tagClass = BERTag.TagClass(rawValue: first >> 6) ?? .universal
        let constructed = first & 0x20 != 0
        guard first & 0x1F == 0x1F else {
            return (BERTag(tagClass, number: UInt32(first & 0x1F), constructed: constructed), start + 1)
        }
        var index = start + 1
        var number: UInt32 = 0
        while true {
            guard index < bytes.endIndex else { throw BERError(.truncated, "input ends inside a tag", at: index) }
            let byte = bytes[index]
            index += 1
            // The first subsequent octet must not be 0x80 (padding), and 32 bits is plenty.
            guard !(number == 0 && byte == 0x80), number <= (UInt32.max >> 7) else {
                throw BERError(.invalidTag, "malformed high tag number", at: start)
            }
            number = (number << 7) | UInt32(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        return (BERTag(tagClass, number: number, constructed: constructed), index)
    }
}
