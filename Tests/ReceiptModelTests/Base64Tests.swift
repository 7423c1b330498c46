import Foundation
import ReceiptModel
import TestSupport
import Testing

/// `Base64.decode` against Foundation's decoder: whole groups go through the two-symbol table, the rest (white space,
/// padding, the URL-safe alphabet, a last partial group) symbol by symbol, and both must agree with each other.
struct Base64Tests {
    /// The standard alphabet, in value order.
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Foundation's reading of padded standard base64: the reference.
    static func reference(_ text: [UInt8]) -> [UInt8]? {
        Data(base64Encoded: Data(text)).map { Array($0) }
    }

    @Test func everyPairOfSymbolsInEveryPlaceOfAGroupDecodesAsFoundationDoes() throws {
        for first in Self.alphabet {
            for second in Self.alphabet {
                // The pair as the first half of a group, then as the second half, then spanning both.
                for text in [[first, second, 65, 65], [65, 65, first, second], [65, first, second, 65]] {
                    let expected = try #require(Self.reference(text))
                    #expect(Base64.decode(text) == expected, "\(String(decoding: text, as: UTF8.self))")
                }
            }
        }
    }

    @Test(arguments: 0..<64)
    func roundTripsEveryLength(length: Int) throws {
        var generator = SplitMix64(seed: UInt64(length) &+ 1)
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Array(Base64.encode(bytes).utf8)
        #expect(Self.reference(text) == bytes)
        #expect(Base64.decode(text) == bytes)
        // Without padding, as receipts sometimes arrive.
        #expect(Base64.decode(text.filter { $0 != UInt8(ascii: "=") }) == bytes)
    }

    @Test func whiteSpaceAnywhereIsSkipped() throws {
        let bytes = (0..<48).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let text = Array(Base64.encode(bytes).utf8)
        for position in 0...text.count {
            for space in [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")] {
                var spaced = text
                spaced.insert(space, at: position)
                #expect(Base64.decode(spaced) == bytes, "white space at \(position)")
            }
        }
    }

    @Test func aForeignByteAnywhereIsRefused() {
        let text = Array("QUJDREVGR0hJSktMTU5PUFFSU1RVVldY".utf8)
        #expect(Base64.decode(text) != nil)
        for position in text.indices {
            for foreign in [UInt8(ascii: "."), UInt8(ascii: "*"), 0x00, 0x80, 0xFF] {
                var spoiled = text
                spoiled[position] = foreign
                #expect(Base64.decode(spoiled) == nil, "byte \(foreign) at \(position)")
            }
        }
    }

    @Test func theURLSafeAlphabetReadsAsTheStandardOne() {
        let expected = Self.reference(Array("+/+/ab+/".utf8))
        #expect(expected != nil)
        #expect(Base64.decode(Array("-_-_ab-_".utf8)) == expected)
    }

    @Test(arguments: [
        ("QQ==", [UInt8(0x41)] as [UInt8]?), ("QUI=", [0x41, 0x42]), ("QQ", [0x41]), ("Q", nil), ("QQ=x", nil),
        ("QQ===", nil), ("", []), ("QUJD", [0x41, 0x42, 0x43]),
    ])
    func paddingAndPartialGroups(text: String, expected: [UInt8]?) {
        #expect(Base64.decode(Array(text.utf8)) == expected)
    }
}
