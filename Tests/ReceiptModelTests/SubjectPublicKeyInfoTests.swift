import BER
import Foundation
import TestSupport
import Testing

@testable import ReceiptModel

/// The package's own reading of a certificate's key, which the verifier trusts before OpenSSL sees the bytes.
@Suite("SubjectPublicKeyInfo")
struct SubjectPublicKeyInfoTests {
    /// The test PKI's leaf as DER, from its PEM.
    static func testLeafDER() throws -> [UInt8] {
        let url = SharedTestData.packageRoot.appendingPathComponent("certs/test-leaf.pem")
        let text = try String(contentsOf: url, encoding: .utf8)
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return try #require(Base64.decode(Array(body.utf8)))
    }

    @Test func readsAnRSAKeysSizes() throws {
        let info = try SubjectPublicKeyInfo(certificate: Self.testLeafDER()[...])
        #expect(info.algorithm == .rsaEncryption)
        #expect(info.rsaSizes?.modulusBits == 2048)
        #expect(info.rsaSizes?.exponentBits == 17)
    }

    @Test(arguments: [[0x30, 0x03, 0x02, 0x01, 0x00], [0x30, 0x00], [0x04, 0x00], []] as [[UInt8]])
    func somethingThatIsNoCertificateThrows(bytes: [UInt8]) {
        #expect(throws: BERError.self) { try SubjectPublicKeyInfo(certificate: bytes[...]) }
    }

    @Test(
        arguments: [
            ([0x01] as [UInt8], 1), ([0x00, 0x80], 8), ([0x01, 0x00, 0x01], 17), ([0x00], nil), ([0x80], nil),
            ([], nil),
        ] as [([UInt8], Int?)])
    func bitLengthsOfPositiveIntegers(content: [UInt8], bits: Int?) {
        #expect(SubjectPublicKeyInfo.positiveBitCount(content[...]) == bits)
    }
}
