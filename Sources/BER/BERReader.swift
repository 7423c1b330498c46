/// Reads consecutive BER elements from a byte slice without copying (X.690 §8.1).
///
/// Every length is checked against what remains of the enclosing element, nesting is capped by
/// ``BERLimits/maximumDepth``, and no input can make it trap: malformed bytes throw ``BERError``.
/// Definite and indefinite lengths are both accepted, because App Store receipts are BER with
/// indefinite-length outer structures.
public struct BERReader: Sendable {
    @usableFromInline let bytes: ArraySlice<UInt8>
    @usableFromInline var position: Int
    @usableFromInline let depth: Int
    /// The limits this reader and the readers of its elements' children enforce.
    public let limits: BERLimits

    /// A reader over `bytes` at the top level.
    @inlinable
    public init(_ bytes: ArraySlice<UInt8>, limits: BERLimits = .default) {
        self.init(bytes, limits: limits, depth: 0)
    }

    @inlinable
    init(_ bytes: ArraySlice<UInt8>, limits: BERLimits, depth: Int) {
        self.bytes = bytes
        self.position = bytes.startIndex
        self.limits = limits
        self.depth = depth
    }

    /// `true` when every element has been read.
    @inlinable
    public var isAtEnd: Bool { position >= bytes.endIndex }

    /// The index in the input of the next unread byte.
    @inlinable
    public var currentOffset: Int { position }

    /// Reads the next element, or returns `nil` at the end of the input.
    @inlinable
    public mutating func next() throws(BERError) -> BERElement? {
        guard position < bytes.endIndex else { return nil }
        let (element, end) = try Self.parseElement(in: bytes, at: position, depth: depth, limits: limits)
        position = end
        return element
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
    @inlinable
    public mutating func readIfPresent(_ tag: BERTag) throws(BERError) -> BERElement? {
        guard position < bytes.endIndex else { return nil }
        var lookahead = self
        guard let element = try lookahead.next(), element.tag == tag else { return nil }
        self = lookahead
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

    /// Parses the element starting at `start`; returns it and the index just past it.
    @inlinable
    static func parseElement(
        in bytes: ArraySlice<UInt8>, at start: Int, depth: Int, limits: BERLimits
    ) throws(BERError) -> (BERElement, Int) {
        #if DEBUG
            ParseMeter.countHeader()
        #endif
        let end = bytes.endIndex
        var index = start
        let (tag, afterTag) = try parseTag(in: bytes, at: index)
        index = afterTag
        guard index < end else { throw BERError(.truncated, "input ends before the length octets", at: index) }
        let first = bytes[index]
        index += 1

        if first == 0x80 {
            // X.690 §8.1.3.6: indefinite form, constructed only, closed by 00 00.
            guard tag.isConstructed else {
                throw BERError(.indefinitePrimitive, "primitive \(tag) with indefinite length", at: start)
            }
            let contentStart = index
            let contentEnd = try endOfIndefiniteContent(in: bytes, from: contentStart, depth: depth + 1, limits: limits)
            let elementEnd = contentEnd + 2
            let element = BERElement(
                tag: tag, encoded: bytes[start..<elementEnd], content: bytes[contentStart..<contentEnd],
                isIndefiniteLength: true, depth: depth, limits: limits)
            return (element, elementEnd)
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
        let contentEnd = index + length
        let element = BERElement(
            tag: tag, encoded: bytes[start..<contentEnd], content: bytes[index..<contentEnd],
            isIndefiniteLength: false, depth: depth, limits: limits)
        return (element, contentEnd)
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

    /// Finds the end-of-contents octets that close an indefinite-length element whose contents
    /// start at `start`; returns their index. Nested indefinite elements are skipped recursively,
    /// each level counted against the depth limit, so the recursion is bounded.
    @inlinable
    static func endOfIndefiniteContent(
        in bytes: ArraySlice<UInt8>, from start: Int, depth: Int, limits: BERLimits
    ) throws(BERError) -> Int {
        guard depth <= limits.maximumDepth else {
            throw BERError(.depthExceeded, "nesting exceeds \(limits.maximumDepth) levels", at: start)
        }
        var index = start
        while true {
            guard bytes.endIndex - index >= 2 else {
                throw BERError(.missingEndOfContents, "indefinite-length element is never closed", at: start)
            }
            if bytes[index] == 0, bytes[index + 1] == 0 { return index }
            // A child's own end is found by the same parser; it recurses for nested indefinite ones.
            let (_, childEnd) = try parseElement(in: bytes, at: index, depth: depth, limits: limits)
            index = childEnd
        }
    }
}
