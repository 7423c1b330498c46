import Testing

@_spi(Fuzzing) @testable import BER

/// Indefinite-length BER: the reader finds every end and every error exactly as a straightforward recursive
/// reader does, and its work is linear in the input whatever the nesting (issue 10, class 4(b)). The work is
/// counted in parsed element headers (``ParseMeter``, debug builds), never timed.
struct IndefiniteLengthTests {
    // MARK: - Same ends and errors as the reference

    @Test func deeplyNestedAndSiblingHeavyInputsHaveTheReferenceEnds() {
        let inputs: [(String, [UInt8])] = [
            ("31-deep chain", NestedInput.chain(depth: 31, leaves: 50)),
            ("binary tree of height 10", NestedInput.tree(height: 10, branching: 2)),
            ("wide tree", NestedInput.tree(height: 3, branching: 12)),
            ("chains of alternating forms", NestedInput.alternatingChain(depth: 31, leaves: 20)),
            ("siblings beside every level", NestedInput.comb(depth: 31, siblingsPerLevel: 5)),
        ]
        for (name, bytes) in inputs {
            let reference = ReferenceReader.walk(bytes)
            let actual = BERReader.walk(bytes)
            #expect(reference.failure == nil, "\(name): the input itself must be well-formed")
            #expect(actual.failure == nil, "\(name)")
            #expect(actual.visits == reference.visits, "\(name)")
        }
    }

    @Test func endsAndErrorsMatchTheReferenceOnRandomNestingsAndTheirMutations() {
        var mismatches = 0
        for seed in UInt64(1)...600 {
            var random = SplitMix(seed: seed)
            let original = NestedInput.random(&random, elements: 120)
            var inputs = [original]
            for _ in 0..<4 { inputs.append(NestedInput.mutated(original, &random)) }
            let maximumDepth = [32, 32, 32, 5][random.below(4)]
            for bytes in inputs {
                let reference = ReferenceReader.walk(bytes, maximumDepth: maximumDepth)
                let actual = BERReader.walk(bytes, limits: BERLimits(maximumDepth: maximumDepth))
                guard actual.visits == reference.visits, actual.failure == reference.failure else {
                    mismatches += 1
                    let found = actual.failure.map { "\($0)" } ?? "no error"
                    let expected = reference.failure.map { "\($0)" } ?? "no error"
                    Issue.record(
                        """
                        seed \(seed), depth limit \(maximumDepth): \(found) after \(actual.visits.count) elements; \
                        the reference: \(expected) after \(reference.visits.count)
                        """)
                    break
                }
            }
            if mismatches >= 3 { break }
        }
    }

    /// A malformed nesting, the error a walk stops at, and where.
    struct MalformedNesting: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var code: BERError.Code
        var offset: Int
        var testDescription: String { name }
    }

    static let malformedNestings: [MalformedNesting] = [
        .init(
            name: "never closed: the innermost open content", bytes: [0x30, 0x80, 0x30, 0x80, 0x05, 0x00],
            code: .missingEndOfContents, offset: 4),
        .init(
            name: "inner closed, outer never", bytes: [0x30, 0x80, 0x30, 0x80, 0x05, 0x00, 0x00, 0x00],
            code: .missingEndOfContents, offset: 2),
        .init(
            name: "31 levels closed, the outermost never",
            bytes: Array(NestedInput.chain(depth: 32, leaves: 1).dropLast(2)),
            code: .missingEndOfContents, offset: 2),
        .init(
            name: "33 levels of indefinite nesting", bytes: NestedInput.chain(depth: 33, leaves: 1),
            code: .depthExceeded, offset: 66),
        .init(
            name: "end-of-contents inside a definite child", bytes: [0x30, 0x80, 0x30, 0x02, 0x00, 0x00, 0x00, 0x00],
            code: .unexpectedEndOfContents, offset: 4),
        .init(
            name: "end-of-contents tag with a length", bytes: [0x30, 0x80, 0x00, 0x01, 0x05, 0x00, 0x00],
            code: .unexpectedEndOfContents, offset: 2),
        .init(
            name: "end-of-contents with an indefinite length", bytes: [0x30, 0x80, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00],
            code: .indefinitePrimitive, offset: 2),
        .init(
            name: "end-of-contents after the top-level element", bytes: [0x30, 0x80, 0x00, 0x00, 0x00, 0x00],
            code: .unexpectedEndOfContents, offset: 4),
        .init(
            name: "an indefinite child running past its definite parent", bytes: [0x30, 0x03, 0x30, 0x80, 0x00, 0x00],
            code: .missingEndOfContents, offset: 4),
        .init(
            name: "a deep child's length past the outer end",
            bytes: [0x30, 0x80, 0x30, 0x80, 0x04, 0x05, 0x00, 0x00, 0x00, 0x00], code: .lengthExceedsInput, offset: 4),
        .init(
            name: "a deep child truncated in its tag", bytes: [0x30, 0x80, 0x30, 0x80, 0x1F, 0x81], code: .truncated,
            offset: 6),
    ]

    @Test(arguments: malformedNestings)
    func stopsAtTheReferenceErrorInMalformedNestings(_ nesting: MalformedNesting) {
        let expected = ReferenceReader.Failure(code: nesting.code, offset: nesting.offset)
        let reference = ReferenceReader.walk(nesting.bytes)
        #expect(reference.failure == expected, "the reference itself")
        let actual = BERReader.walk(nesting.bytes)
        #expect(actual.failure == expected)
        #expect(actual.visits == reference.visits)
    }

    @Test func anIndefiniteChildEndsWhereARescanOfItsParentsContentEnds() throws {
        // The outer scan runs over the whole input; the child's reader only over its parent's content. Both
        // must agree on where every nested element ends, because every definite length inside fitted.
        let bytes = NestedInput.chain(depth: 5, leaves: 3) + [0x05, 0x00]
        var top = BERReader(bytes[...])
        var element = try #require(try top.next())
        for _ in 0..<4 {
            var children = try element.children()
            let child = try #require(try children.next())
            var fresh = BERReader(element.content)
            let rescanned = try #require(try fresh.next())
            #expect(child.encoded.indices == rescanned.encoded.indices)
            #expect(child.content.indices == rescanned.content.indices)
            #expect(children.isAtEnd && fresh.isAtEnd)
            element = child
        }
        #expect(try top.next()?.tag == .null)
    }

    // MARK: - Linear work

    @Test func walkingA31DeepNestingParsesEachElementAtMostTwice() throws {
        for leaves in [1_000, 20_000] {
            let bytes = NestedInput.chain(depth: 31, leaves: leaves)
            let (visits, headers) = ParseMeter.measure { BERReader.walk(bytes).visits.count }
            #expect(visits == 31 + leaves)
            // Once by the scan that finds the outermost element's end, once by the walk itself.
            #expect(headers <= 2 * visits, "\(headers) header parses for \(visits) elements")
        }
    }

    @Test func nestingDoesNotMultiplyTheWork() {
        let size = 64 * 1024
        let flat = ParseMeter.measure { BERReader.walk(NestedInput.chain(depth: 1, size: size)).visits.count }
        let deep = ParseMeter.measure { BERReader.walk(NestedInput.chain(depth: 31, size: size)).visits.count }
        #expect(flat.result > 30_000 && deep.result > 30_000)
        // Same bytes, as many elements: 31 levels of nesting may cost no more than one.
        #expect(deep.headers <= flat.headers + 2 * 31, "flat \(flat.headers), 31 deep \(deep.headers)")
    }

    @Test func doublingTheInputDoublesTheWork() {
        for make in [
            { (size: Int) in NestedInput.chain(depth: 31, size: size) },
            { (size: Int) in NestedInput.comb(depth: 31, siblingsPerLevel: size / 31 / 4) },
        ] {
            let single = ParseMeter.measure { BERReader.walk(make(32 * 1024)).visits.count }
            let double = ParseMeter.measure { BERReader.walk(make(64 * 1024)).visits.count }
            let ratio = Double(double.headers) / Double(single.headers)
            #expect(ratio > 1.9 && ratio < 2.1, "\(single.headers) then \(double.headers) header parses")
            #expect(double.headers <= 2 * double.result)
        }
    }

    @Test func aSiblingHeavyTreeParsesEachElementAtMostTwice() {
        let bytes = NestedInput.tree(height: 14, branching: 2)
        let (visits, headers) = ParseMeter.measure { BERReader.walk(bytes).visits.count }
        #expect(visits == (1 << 14) - 1 + (1 << 13) * 4)  // the SEQUENCEs, then four NULLs in each of the last
        #expect(headers <= 2 * visits, "\(headers) header parses for \(visits) elements")
    }

    @Test func lookaheadForAnAbsentOptionalStaysCheapInsideNesting() throws {
        let bytes = NestedInput.chain(depth: 31, leaves: 5_000)
        let (elements, headers) = try ParseMeter.measure { () throws -> Int in
            var count = 0
            var reader = BERReader(bytes[...])
            // At every level, ask for an absent OPTIONAL [5] before reading each element, as decoders do.
            func walk(_ reader: inout BERReader) throws(BERError) {
                while true {
                    if try reader.readIfPresent(.contextSpecific(5, constructed: true)) != nil {
                        Issue.record("found an element with a tag the input does not have")
                    }
                    guard let element = try reader.next() else { return }
                    count += 1
                    if element.tag.isConstructed {
                        var children = try element.children()
                        try walk(&children)
                    }
                }
            }
            try walk(&reader)
            return count
        }
        #expect(elements == 5_031)
        #expect(headers <= 3 * elements, "\(headers) header parses for \(elements) elements")
    }

    @Test func joiningADeeplyNestedConstructedStringParsesEachSegmentAtMostTwice() throws {
        // OCTET STRING (constructed, indefinite) nested 30 deep around 4,000 one-octet segments.
        let segments = 4_000
        var bytes: [UInt8] = []
        for _ in 0..<30 { bytes += [0x24, 0x80] }
        for index in 0..<segments { bytes += [0x04, 0x01, UInt8(truncatingIfNeeded: index)] }
        for _ in 0..<30 { bytes += [0x00, 0x00] }
        let (joined, headers) = try ParseMeter.measure { () throws -> ArraySlice<UInt8> in
            var reader = BERReader(bytes[...])
            return try reader.readAny().stringBytes(expecting: .octetString)
        }
        #expect(Array(joined) == (0..<segments).map { UInt8(truncatingIfNeeded: $0) })
        #expect(headers <= 2 * (segments + 30), "\(headers) header parses for \(segments + 30) segments")
    }

    @Test func theNestingErrorsStayTheSameWhenReachedThroughAnEnclosingScan() {
        // The outermost scan meets the problem first; a walk must report exactly what it found.
        let never = NestedInput.chain(depth: 31, leaves: 10).dropLast(2 * 31)
        #expect(BERReader.walk(Array(never)).failure == ReferenceReader.walk(Array(never)).failure)
        let tooDeep = NestedInput.chain(depth: 40, leaves: 10)
        #expect(BERReader.walk(tooDeep).failure == ReferenceReader.Failure(code: .depthExceeded, offset: 66))
    }
}

/// Inputs of nested indefinite-length SEQUENCEs, built so that every length is right.
enum NestedInput {
    /// `depth` nested indefinite SEQUENCEs around `leaves` NULLs.
    static func chain(depth: Int, leaves: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(depth * 4 + leaves * 2)
        for _ in 0..<depth { bytes += [0x30, 0x80] }
        for _ in 0..<leaves { bytes += [0x05, 0x00] }
        for _ in 0..<depth { bytes += [0x00, 0x00] }
        return bytes
    }

    /// A chain of about `size` bytes.
    static func chain(depth: Int, size: Int) -> [UInt8] { chain(depth: depth, leaves: (size - depth * 4) / 2) }

    /// A full tree of indefinite SEQUENCEs of `height` levels, each with `branching` children; the nodes of
    /// the last level hold two NULLs.
    static func tree(height: Int, branching: Int) -> [UInt8] {
        guard height > 0 else { return [0x05, 0x00, 0x05, 0x00] }
        let child = tree(height: height - 1, branching: branching)
        var bytes: [UInt8] = [0x30, 0x80]
        for _ in 0..<branching { bytes += child }
        return bytes + [0x00, 0x00]
    }

    /// A chain whose levels alternate indefinite and definite lengths (each definite level's length right).
    static func alternatingChain(depth: Int, leaves: Int) -> [UInt8] {
        var inner = [UInt8](repeating: 0, count: leaves * 2)
        for index in stride(from: 0, to: inner.count, by: 2) { inner[index] = 0x05 }
        for level in 0..<depth {
            inner = level % 2 == 0 ? [0x30, 0x80] + inner + [0x00, 0x00] : [0x30] + lengthOctets(inner.count) + inner
        }
        return inner
    }

    /// `depth` nested indefinite SEQUENCEs, with `siblingsPerLevel` small indefinite SEQUENCEs before the
    /// next level at every level.
    static func comb(depth: Int, siblingsPerLevel: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<depth {
            bytes += [0x30, 0x80]
            for _ in 0..<siblingsPerLevel { bytes += [0x30, 0x80, 0x05, 0x00, 0x00, 0x00] }
        }
        bytes += [0x05, 0x00]
        for _ in 0..<depth { bytes += [0x00, 0x00] }
        return bytes
    }

    /// A random well-formed nesting of about `elements` elements: primitives (low and high tag numbers,
    /// short and long lengths), constructed elements of both length forms, chains deeper than the limit.
    static func random(_ random: inout SplitMix, elements: Int) -> [UInt8] {
        var budget = elements
        // How often an element is primitive: 1 in 10 makes chains past the depth limit common, 3 in 10 rare.
        let primitiveChance = 1 + random.below(3)
        var bytes: [UInt8] = []
        while budget > 0 { bytes += element(&random, depth: 0, budget: &budget, primitiveChance: primitiveChance) }
        return bytes
    }

    private static func element(
        _ random: inout SplitMix, depth: Int, budget: inout Int, primitiveChance: Int
    ) -> [UInt8] {
        budget -= 1
        let roll = random.below(10)
        guard depth < 36, budget > 0, roll >= primitiveChance else {
            let tags: [[UInt8]] = [[0x02], [0x04], [0x05], [0x0C], [0x80], [0x5F, 0x87, 0x68], [0x9F, 0x1F]]
            let content = (0..<random.below(5)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            return tags[random.below(tags.count)] + lengthOctets(content.count, long: random.below(4) == 0) + content
        }
        let tags: [[UInt8]] = [[0x30], [0x31], [0xA0], [0xA3], [0x24], [0x7F, 0x81, 0x00]]
        let tag = tags[random.below(tags.count)]
        // Mostly one child, so that chains grow deep; sometimes several, so that siblings share levels.
        let count = random.below(3) == 0 ? random.below(5) : 1
        var content: [UInt8] = []
        for _ in 0..<count where budget > 0 {
            content += element(&random, depth: depth + 1, budget: &budget, primitiveChance: primitiveChance)
        }
        if roll < primitiveChance + 6 { return tag + [0x80] + content + [0x00, 0x00] }
        return tag + lengthOctets(content.count, long: random.below(4) == 0) + content
    }

    /// `bytes` with one random change: a byte replaced, the input cut short, end-of-contents inserted, a
    /// byte removed, or a length made indefinite.
    static func mutated(_ bytes: [UInt8], _ random: inout SplitMix) -> [UInt8] {
        guard !bytes.isEmpty else { return bytes }
        var result = bytes
        let index = random.below(bytes.count)
        switch random.below(5) {
        case 0: result[index] = UInt8(truncatingIfNeeded: random.next())
        case 1: result.removeLast(bytes.count - index)
        case 2: result.insert(contentsOf: [0x00, 0x00], at: index)
        case 3: result.remove(at: index)
        default: result[index] = 0x80
        }
        return result
    }

    /// Definite length octets: the short form, or the long form with as few octets as possible (or one more).
    static func lengthOctets(_ length: Int, long: Bool = false) -> [UInt8] {
        if length < 0x80 && !long { return [UInt8(length)] }
        var octets: [UInt8] = []
        var rest = length
        repeat {
            octets.insert(UInt8(rest & 0xFF), at: octets.startIndex)
            rest >>= 8
        } while rest > 0
        if long { octets.insert(0, at: octets.startIndex) }  // BER allows a leading zero octet (DER does not)
        return [0x80 | UInt8(octets.count)] + octets
    }
}

/// A small, seeded pseudo-random generator (SplitMix64), so every run tests the same inputs.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
