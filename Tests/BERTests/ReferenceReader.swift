@_spi(Fuzzing) import BER

/// A deliberately naive reader with the semantics ``BERReader`` documents: an indefinite-length element's end
/// is found by parsing its children recursively, every time it is needed (quadratic in the nesting, and
/// obviously right). The tests compare the real reader's ends, depths and errors with it.
enum ReferenceReader {
    /// Where a walk stopped: the error's code and offset.
    struct Failure: Error, Equatable, CustomStringConvertible {
        var code: BERError.Code
        var offset: Int
        var description: String { "\(code) at \(offset)" }
    }

    /// One element as a walk meets it, with every index the reader exposes.
    struct Visit: Equatable, CustomStringConvertible {
        var offset: Int
        var depth: Int
        var tag: BERTag
        var isIndefiniteLength: Bool
        var contentStart: Int
        var contentEnd: Int
        var end: Int
        var description: String {
            "\(tag) at \(offset) depth \(depth) content \(contentStart)..<\(contentEnd) end \(end)"
                + (isIndefiniteLength ? " (indefinite)" : "")
        }
    }

    /// Every element of `bytes` in preorder (descending into every constructed element), and the error that
    /// stopped the walk, if any.
    static func walk(_ bytes: [UInt8], maximumDepth: Int = BERLimits.default.maximumDepth) -> (
        visits: [Visit], failure: Failure?
    ) {
        var visits: [Visit] = []
        do {
            try walk(bytes, from: 0, to: bytes.count, depth: 0, maximumDepth: maximumDepth, into: &visits)
            return (visits, nil)
        } catch {
            return (visits, error)
        }
    }

    private static func walk(
        _ bytes: [UInt8], from start: Int, to end: Int, depth: Int, maximumDepth: Int, into visits: inout [Visit]
    ) throws(Failure) {
        var index = start
        while index < end {
            let visit = try element(bytes, at: index, end: end, depth: depth, maximumDepth: maximumDepth)
            visits.append(visit)
            if visit.tag.isConstructed {
                guard depth + 1 <= maximumDepth else { throw Failure(code: .depthExceeded, offset: visit.offset) }
                try walk(
                    bytes, from: visit.contentStart, to: visit.contentEnd, depth: depth + 1,
                    maximumDepth: maximumDepth, into: &visits)
            }
            index = visit.end
        }
    }

    /// The element at `start` of the input that ends at `end` (X.690 §8.1).
    static func element(
        _ bytes: [UInt8], at start: Int, end: Int, depth: Int, maximumDepth: Int
    ) throws(Failure) -> Visit {
        guard start < end else { throw Failure(code: .truncated, offset: start) }
        let first = bytes[start]
        var index = start + 1
        var number = UInt32(first & 0x1F)
        if number == 0x1F {
            number = 0
            while true {
                guard index < end else { throw Failure(code: .truncated, offset: index) }
                let byte = bytes[index]
                index += 1
                guard !(number == 0 && byte == 0x80), number <= UInt32.max >> 7 else {
                    throw Failure(code: .invalidTag, offset: start)
                }
                number = number << 7 | UInt32(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
        }
        let tagClass: BERTag.TagClass = [.universal, .application, .contextSpecific, .private][Int(first >> 6)]
        let tag = BERTag(tagClass, number: number, constructed: first & 0x20 != 0)
        guard index < end else { throw Failure(code: .truncated, offset: index) }
        let lengthOctet = bytes[index]
        index += 1

        if lengthOctet == 0x80 {
            guard tag.isConstructed else { throw Failure(code: .indefinitePrimitive, offset: start) }
            guard depth + 1 <= maximumDepth else { throw Failure(code: .depthExceeded, offset: index) }
            var child = index
            while true {
                guard end - child >= 2 else { throw Failure(code: .missingEndOfContents, offset: index) }
                if bytes[child] == 0, bytes[child + 1] == 0 {
                    return Visit(
                        offset: start, depth: depth, tag: tag, isIndefiniteLength: true, contentStart: index,
                        contentEnd: child, end: child + 2)
                }
                child = try element(bytes, at: child, end: end, depth: depth + 1, maximumDepth: maximumDepth).end
            }
        }

        var length = Int(lengthOctet)
        if lengthOctet > 0x80 {
            let octets = Int(lengthOctet & 0x7F)
            guard lengthOctet != 0xFF, octets <= 8 else { throw Failure(code: .invalidLength, offset: index - 1) }
            guard end - index >= octets else { throw Failure(code: .truncated, offset: index) }
            var value: UInt64 = 0
            for _ in 0..<octets {
                value = value << 8 | UInt64(bytes[index])
                index += 1
            }
            guard value <= UInt64(end - index) else { throw Failure(code: .lengthExceedsInput, offset: start) }
            length = Int(value)
        }
        guard length <= end - index else { throw Failure(code: .lengthExceedsInput, offset: start) }
        guard tag != .endOfContents else { throw Failure(code: .unexpectedEndOfContents, offset: start) }
        return Visit(
            offset: start, depth: depth, tag: tag, isIndefiniteLength: false, contentStart: index,
            contentEnd: index + length, end: index + length)
    }
}

extension BERReader {
    /// The real reader's walk, in the reference's terms: every element in preorder, descending into every
    /// constructed element, and the error that stopped it.
    static func walk(_ bytes: [UInt8], limits: BERLimits = .default) -> (
        visits: [ReferenceReader.Visit], failure: ReferenceReader.Failure?
    ) {
        var visits: [ReferenceReader.Visit] = []
        func walk(_ reader: inout BERReader) throws(BERError) {
            while let element = try reader.next() {
                visits.append(
                    ReferenceReader.Visit(
                        offset: element.offset, depth: element.depth, tag: element.tag,
                        isIndefiniteLength: element.isIndefiniteLength, contentStart: element.content.startIndex,
                        contentEnd: element.content.endIndex, end: element.encoded.endIndex))
                if element.tag.isConstructed {
                    var children = try element.children()
                    try walk(&children)
                }
            }
        }
        do {
            var reader = BERReader(bytes[...], limits: limits)
            try walk(&reader)
            return (visits, nil)
        } catch {
            return (visits, ReferenceReader.Failure(code: error.code, offset: error.offset))
        }
    }
}
