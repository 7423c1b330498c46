@_spi(Fuzzing) import BER
import FuzzSupport

// fuzz-ber: the BER reader on its own. Every element is read, every constructed element descended into (up to
// the depth limit), and every value reader is tried on every element whatever its tag: `integerValue`,
// `objectIdentifierValue` (and its dotted form), `stringBytes` (joining constructed segments). Run twice: with
// the default limits and with tight ones, so the limit paths are reached by small inputs too.
//
// Checked besides "does not trap": every slice lies inside the input, `content` inside `encoded`, and a
// reader never returns an element that does not advance it.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = LibFuzzer.bytes(data, size)
    FuzzBER.run(bytes)
    return 0
}

@_cdecl("fuzz_ber_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    LibFuzzer.run(argc: argc, argv: argv, testOneInput: testOneInput)
}

enum FuzzBER {
    static let tightLimits = BERLimits(maximumDepth: 4, maximumStringSegments: 8)

    static func run(_ bytes: [UInt8]) {
        for limits in [BERLimits.default, tightLimits] {
            var reader = BERReader(bytes[...], limits: limits)
            walk(&reader, within: bytes.indices)
        }

        // The one-shot readers a decoder uses on a top-level structure.
        var reader = BERReader(bytes[...])
        if let sequence = try? reader.readIfPresent(.sequence) {
            Sink.consume(sequence.isIndefiniteLength)
            Sink.consume(Result { () throws(BERError) in try reader.expectEnd() })
        } else if let any = try? reader.readAny() {
            Sink.consume(Result { () throws(BERError) in try any.expectTag(.octetString) })
        }

        // The dotted form is parsed from text written in source only, but it promises `nil`, never a trap.
        if bytes.count <= 128, let text = String(validating: bytes, as: UTF8.self) {
            Sink.consume(ASN1ObjectIdentifier(text))
        }
    }

    static func walk(_ reader: inout BERReader, within bounds: Range<Int>) {
        while true {
            let before = reader.currentOffset
            let element: BERElement
            do {
                guard let next = try reader.next() else { return }
                element = next
            } catch {
                Sink.consume(error.code)
                return
            }
            check(element, within: bounds, readerMovedFrom: before, to: reader.currentOffset)
            readValues(of: element)
            guard element.tag.isConstructed else { continue }
            do {
                var children = try element.children()
                walk(&children, within: element.content.startIndex..<element.content.endIndex)
            } catch {
                Sink.consume(error.code)
            }
        }
    }

    static func check(_ element: BERElement, within bounds: Range<Int>, readerMovedFrom before: Int, to after: Int) {
        let encoded = element.encoded
        let content = element.content
        Oracle.check(
            encoded.startIndex >= bounds.lowerBound && encoded.endIndex <= bounds.upperBound,
            "ber: element \(encoded.startIndex)..<\(encoded.endIndex) outside its parent \(bounds)")
        Oracle.check(
            content.startIndex >= encoded.startIndex && content.endIndex <= encoded.endIndex,
            "ber: content \(content.startIndex)..<\(content.endIndex) outside encoded \(encoded.startIndex)..<\(encoded.endIndex)"
        )
        Oracle.check(after > before, "ber: next() returned an element without advancing (\(before))")
        Oracle.check(encoded.startIndex == before && encoded.endIndex == after, "ber: encoded is not what was read")
        Oracle.check(element.offset == encoded.startIndex, "ber: offset differs from the start of encoded")
    }

    static func readValues(of element: BERElement) {
        Sink.consume(element.tag.description)
        Sink.consume(Result { () throws(BERError) in try element.integerValue() })
        switch Result(catching: { () throws(BERError) in try element.objectIdentifierValue() }) {
        case .success(let identifier):
            let dotted = identifier.description
            Sink.consume(identifier.arcs)
            // Arcs of at most 64 bits survive the round trip through the dotted form.
            if identifier.arcs.allSatisfy({ $0 < UInt64.max }), let reparsed = ASN1ObjectIdentifier(dotted) {
                Oracle.check(reparsed.arcs == identifier.arcs, "ber: OID \(dotted) does not round-trip")
            }
        case .failure(let error):
            Sink.consume(error.code)
        }
        // Matching the element's own tag reaches the segment-joining path for every constructed element.
        switch Result(catching: { () throws(BERError) in try element.stringBytes(expecting: element.tag) }) {
        case .success(let string):
            if !element.tag.isConstructed {
                Oracle.check(string.elementsEqual(element.content), "ber: a primitive string is not its content")
            }
            Oracle.check(string.count <= element.content.count, "ber: joined segments longer than the content")
        case .failure(let error):
            Sink.consume(error.code)
        }
        Sink.consume(Result { () throws(BERError) in try element.stringBytes(expecting: .octetString) })
    }
}
