@_spi(Fuzzing) import BER
import Testing

struct BERReaderTests {
    /// Found by fuzz-ber: a second arc that cannot share the first subidentifier overflowed; it is no identifier.
    @Test(arguments: ["2.18446744073709551615", "2.18446744073709551536", "1.40", "3.1", "1", "1.2.x"])
    func dottedTextThatIsNoIdentifierIsNil(text: String) {
        #expect(ASN1ObjectIdentifier(text) == nil)
    }

    @Test func readsDefiniteLengthElementsAsSlicesOfTheInput() throws {
        let bytes: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x05, 0x04, 0x01, 0xAA]
        var reader = BERReader(bytes[...])
        let sequence = try reader.read(expecting: .sequence)
        #expect(reader.isAtEnd)
        #expect(sequence.encoded.startIndex == 0 && sequence.encoded.endIndex == 8)
        var children = try sequence.children()
        #expect(try children.read(expecting: .integer).integerValue() == 5)
        let octets = try children.read(expecting: .octetString)
        #expect(Array(octets.content) == [0xAA])
        #expect(octets.content.startIndex == 7, "content must be a slice of the input, not a copy")
        #expect(children.isAtEnd)
    }

    @Test func readsIndefiniteLengthsAndExcludesEndOfContents() throws {
        // SEQUENCE (indefinite) { [0] (indefinite) { INTEGER 7 } }
        let bytes: [UInt8] = [0x30, 0x80, 0xA0, 0x80, 0x02, 0x01, 0x07, 0x00, 0x00, 0x00, 0x00]
        var reader = BERReader(bytes[...])
        let outer = try reader.read(expecting: .sequence)
        #expect(outer.isIndefiniteLength)
        #expect(outer.encoded.count == bytes.count)
        #expect(Array(outer.content) == [0xA0, 0x80, 0x02, 0x01, 0x07, 0x00, 0x00])
        var inner = try outer.children()
        let tagged = try inner.read(expecting: .contextSpecific(0, constructed: true))
        var value = try tagged.children()
        #expect(try value.read(expecting: .integer).integerValue() == 7)
        #expect(value.isAtEnd && inner.isAtEnd && reader.isAtEnd)
    }

    @Test func joinsConstructedOctetStringSegments() throws {
        // OCTET STRING (constructed, indefinite) { 04 02 01 02, 04 01 03 }
        let bytes: [UInt8] = [0x24, 0x80, 0x04, 0x02, 0x01, 0x02, 0x04, 0x01, 0x03, 0x00, 0x00]
        var reader = BERReader(bytes[...])
        let element = try reader.readAny()
        #expect(Array(try element.stringBytes(expecting: .octetString)) == [1, 2, 3])
    }

    static let integerCases: [([UInt8], Int64)] = [
        ([0x02, 0x01, 0x80], -128),
        ([0x02, 0x02, 0x00, 0x80], 128),
        ([0x02, 0x08, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], Int64.max),
        ([0x02, 0x08, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], Int64.min),
        ([0x02, 0x09, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], Int64.max),
        ([0x02, 0x07, 0x03, 0x8D, 0x7E, 0xA7, 0xFF, 0x20, 0x47], 1_000_000_054_042_695),
    ]

    @Test(arguments: integerCases)
    func decodesSixtyFourBitIntegers(bytes: [UInt8], expected: Int64) throws {
        var reader = BERReader(bytes[...])
        #expect(try reader.read(expecting: .integer).integerValue() == expected)
    }

    @Test func rejectsIntegersBeyondSixtyFourBits() throws {
        let bytes: [UInt8] = [0x02, 0x09, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]
        var reader = BERReader(bytes[...])
        let element = try reader.readAny()
        #expect(throws: BERError(.integerOverflow, "", at: 0)) { try element.integerValue() }
    }

    @Test func readsHighTagNumbers() throws {
        // [APPLICATION 1000] primitive, length 0: 5F 87 68 00
        let bytes: [UInt8] = [0x5F, 0x87, 0x68, 0x00]
        var reader = BERReader(bytes[...])
        let element = try reader.readAny()
        #expect(element.tag == BERTag(.application, number: 1000, constructed: false))
    }

    @Test func objectIdentifiersRoundTripThroughDottedForm() throws {
        let oid = try #require(ASN1ObjectIdentifier("1.2.840.113635.100.6.11.1"))
        #expect(oid.description == "1.2.840.113635.100.6.11.1")
        #expect(Array(oid.encodedArcs) == [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x0B, 0x01])
        #expect(ASN1ObjectIdentifier(encodedArcs: [0x2A, 0x80, 0x01][...]) == nil, "padding octet 0x80")
        #expect(ASN1ObjectIdentifier(encodedArcs: [0x2A, 0x86][...]) == nil, "unterminated arc")
    }

    // MARK: - Malformed input gives the right typed error

    static let malformedHeaders: [([UInt8], BERError.Code)] = [
        ([0x30], .truncated),
        ([0x30, 0x85, 0x01], .truncated),
        ([0x30, 0x89, 0, 0, 0, 0, 0, 0, 0, 0, 1], .invalidLength),
        ([0x30, 0xFF], .invalidLength),
        ([0x30, 0x88, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .lengthExceedsInput),
        ([0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x00], .lengthExceedsInput),
        ([0x04, 0x80, 0x00, 0x00], .indefinitePrimitive),
        ([0x30, 0x80, 0x02, 0x01, 0x00], .missingEndOfContents),
        ([0x00, 0x00], .unexpectedEndOfContents),
        ([0x1F, 0x80, 0x01, 0x00], .invalidTag),
        ([0x1F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x00], .invalidTag),
    ]

    @Test(arguments: malformedHeaders)
    func rejectsMalformedHeaders(bytes: [UInt8], code: BERError.Code) {
        var reader = BERReader(bytes[...])
        #expect(throws: BERError(code, "", at: 0)) { _ = try reader.next() }
    }

    @Test func stopsTenThousandDeepIndefiniteNestingAtTheDepthLimit() {
        let depth = 10_000
        let bytes = [UInt8](repeating: 0, count: depth * 4).enumerated().map { index, _ -> UInt8 in
            index < depth * 2 ? (index % 2 == 0 ? 0x30 : 0x80) : 0x00
        }
        var reader = BERReader(bytes[...])
        #expect(throws: BERError(.depthExceeded, "", at: 0)) { _ = try reader.next() }
    }

    @Test func stopsTenThousandDeepDefiniteNestingAtTheDepthLimit() throws {
        // Build inside out so every length is right: the reader must refuse to descend, not trap.
        var bytes: [UInt8] = [0x05, 0x00]
        for _ in 0..<10_000 { bytes = [0x30] + Self.lengthOctets(bytes.count) + bytes }
        var element = try #require(try BERReader(bytes[...]).nextElement())
        let error = #expect(throws: BERError.self) {
            while true {
                var children = try element.children()
                element = try children.readAny()
            }
        }
        #expect(error?.code == .depthExceeded)
        #expect(element.depth == BERLimits.default.maximumDepth)
    }

    static func lengthOctets(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        var octets: [UInt8] = []
        var rest = length
        while rest > 0 {
            octets.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }
}

extension BERReader {
    fileprivate func nextElement() throws -> BERElement? {
        var copy = self
        return try copy.next()
    }
}
