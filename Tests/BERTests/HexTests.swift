import BER
import Testing

@Suite struct HexTests {
    @Test func encodesBothCases() {
        #expect(Hex.encode([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
        #expect(Hex.encode([0x00, 0x0F, 0xA5, 0xFF], uppercase: true) == "000FA5FF")
        #expect(Hex.encode([UInt8]()) == "")
    }

    @Test func decodesWhatItEncodesInEitherCase() {
        let bytes: [UInt8] = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Array(Hex.encode(bytes).utf8)) == .success(bytes))
        #expect(Hex.decode(Array(Hex.encode(bytes, uppercase: true).utf8)) == .success(bytes))
    }

    @Test func refusesOddLengthsAndNonDigitsWithWhere() {
        #expect(Hex.decode(Array("abc".utf8)) == .failure(.oddLength(3)))
        #expect(Hex.decode(Array("0g".utf8)) == .failure(.notADigit(at: 1)))
        #expect(Hex.decode(Array("00 1".utf8)) == .failure(.notADigit(at: 2)))
    }
}
