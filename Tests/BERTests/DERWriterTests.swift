@_spi(Fuzzing) import BER
import Testing

@Suite struct DERWriterTests {
    static let integerEncodings: [(Int64, [UInt8])] = [
        (0, [0x00]),
        (127, [0x7F]),
        (128, [0x00, 0x80]),
        (255, [0x00, 0xFF]),
        (256, [0x01, 0x00]),
        (-1, [0xFF]),
        (-128, [0x80]),
        (-129, [0xFF, 0x7F]),
        (1706, [0x06, 0xAA]),
        (Int64.max, [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (Int64.min, [0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]),
    ]

    @Test(arguments: integerEncodings)
    func writesMinimalTwosComplementIntegers(value: Int64, content: [UInt8]) throws {
        var writer = DERWriter()
        writer.integer(value)
        #expect(writer.bytes == [0x02, UInt8(content.count)] + content)
        var reader = BERReader(writer.bytes[...])
        #expect(try reader.read(expecting: .integer).integerValue() == value)
    }

    @Test func integersRoundTripThroughTheReader() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = Int64(bitPattern: state) >> Int64(state % 63)
            var writer = DERWriter()
            writer.integer(value)
            var reader = BERReader(writer.bytes[...])
            #expect(try reader.read(expecting: .integer).integerValue() == value)
        }
    }

    @Test func addsASignOctetToUnsignedMagnitudes() {
        var writer = DERWriter()
        writer.integer(unsignedBigEndian: [0x00, 0x00, 0x80, 0x01])
        writer.integer(unsignedBigEndian: [0x30, 0x01])
        writer.integer(unsignedBigEndian: [])
        #expect(writer.bytes == [0x02, 0x03, 0x00, 0x80, 0x01, 0x02, 0x02, 0x30, 0x01, 0x02, 0x01, 0x00])
    }

    @Test func writesObjectIdentifiersFromDottedText() throws {
        var writer = DERWriter()
        writer.objectIdentifier("1.2.840.113549.1.7.2")
        #expect(writer.bytes == [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02])
        var reader = BERReader(writer.bytes[...])
        let oid = try reader.read(expecting: .objectIdentifier).objectIdentifierValue()
        #expect(oid.description == "1.2.840.113549.1.7.2")
    }

    @Test(arguments: [0, 1, 127, 128, 255, 256, 65_535, 65_536, 1_000_000])
    func patchesDefiniteLengthsOfEverySize(size: Int) throws {
        let payload = [UInt8](repeating: 0xAB, count: size)
        var writer = DERWriter()
        writer.sequence { outer in
            outer.octetString(payload)
            outer.null()
        }
        var reader = BERReader(writer.bytes[...])
        let sequence = try reader.read(expecting: .sequence)
        #expect(!sequence.isIndefiniteLength)
        #expect(reader.isAtEnd)
        var children = try sequence.children()
        #expect(try children.read(expecting: .octetString).content.elementsEqual(payload))
        _ = try children.read(expecting: .null)
        #expect(children.isAtEnd)
        // SEQUENCE { OCTET STRING (1 + length octets + size), NULL (2) }: nothing more, nothing less.
        let contentLength = 1 + DERWriter.lengthOctets(size).count + size + 2
        #expect(writer.bytes.count == 1 + DERWriter.lengthOctets(contentLength).count + contentLength)
    }

    @Test func writesLongLengthsInTheShortestLongForm() {
        #expect(DERWriter.lengthOctets(0x7F) == [0x7F])
        #expect(DERWriter.lengthOctets(0x80) == [0x81, 0x80])
        #expect(DERWriter.lengthOctets(0x100) == [0x82, 0x01, 0x00])
        #expect(DERWriter.lengthOctets(0x1_0000) == [0x83, 0x01, 0x00, 0x00])
    }

    @Test func writesIndefiniteLengthsWithEndOfContents() throws {
        var writer = DERWriter(constructedLengthForm: .indefinite)
        writer.sequence { outer in
            outer.contextSpecific(0) { explicit in
                explicit.utf8String("é")
            }
            outer.set(lengthForm: .definite) { set in set.integer(5) }
        }
        #expect(
            writer.bytes == [
                0x30, 0x80, 0xA0, 0x80, 0x0C, 0x02, 0xC3, 0xA9, 0x00, 0x00, 0x31, 0x03, 0x02, 0x01, 0x05, 0x00, 0x00,
            ])
        var reader = BERReader(writer.bytes[...])
        let sequence = try reader.read(expecting: .sequence)
        #expect(sequence.isIndefiniteLength)
        var children = try sequence.children()
        let wrapper = try children.read(expecting: .contextSpecific(0, constructed: true))
        #expect(wrapper.isIndefiniteLength)
        var inner = try wrapper.children()
        #expect(try inner.read(expecting: .utf8String).content.elementsEqual("é".utf8))
        let set = try children.read(expecting: .set)
        #expect(!set.isIndefiniteLength)
        #expect(reader.isAtEnd)
    }

    @Test func sortsSetOfElementsAsDERRequires() {
        var writer = DERWriter()
        writer.setOf(sorting: [[0x04, 0x02, 0xFF, 0x00], [0x04, 0x01, 0x01], [0x02, 0x01, 0x09]])
        #expect(writer.bytes == [0x31, 0x0A, 0x02, 0x01, 0x09, 0x04, 0x01, 0x01, 0x04, 0x02, 0xFF, 0x00])
    }

    @Test func writesHighTagNumbersInBase128() throws {
        var writer = DERWriter()
        writer.primitive(BERTag(.contextSpecific, number: 201, constructed: false), content: [0x01])
        #expect(writer.bytes == [0x9F, 0x81, 0x49, 0x01, 0x01])
        var reader = BERReader(writer.bytes[...])
        let element = try reader.readAny()
        #expect(element.tag == BERTag(.contextSpecific, number: 201, constructed: false))
    }

    @Test func writesStringsBooleansAndRawElements() {
        var writer = DERWriter()
        writer.ia5String("4+")
        writer.boolean(true)
        writer.encoded([0x05, 0x00])
        #expect(writer.bytes == [0x16, 0x02, 0x34, 0x2B, 0x01, 0x01, 0xFF, 0x05, 0x00])
    }

    @Test func propagatesErrorsThrownByNestedBuilders() {
        struct Stop: Error {}
        var writer = DERWriter()
        #expect(throws: Stop.self) {
            try writer.sequence { (_: inout DERWriter) throws(Stop) in throw Stop() }
        }
    }
}
