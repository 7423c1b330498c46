@_spi(Fuzzing) import BER
import Foundation
import ReceiptForge
import Testing

/// The forge's small parts: byte text, certificates, requests, dates, payload layout.
@Suite struct ForgeBuildingBlockTests {
    /// Runs `body`, which must throw a ``ForgeError`` with `code`.
    func expectFailure(
        _ code: ForgeError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) {
        let error = #expect(throws: ForgeError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.code == code, sourceLocation: sourceLocation)
    }

    @Test func byteStringsParseHexAndBase64() throws {
        #expect(try ByteString(hex: "00fFa5").bytes == [0x00, 0xFF, 0xA5])
        #expect(try ByteString(base64: "AP+l").bytes == [0x00, 0xFF, 0xA5])
        #expect(ByteString([0xDE, 0xAD]).hex == "dead")
        let json = try JSONEncoder().encode(ByteString([1, 2]))
        #expect(String(decoding: json, as: UTF8.self) == #"{"hex":"0102"}"#)
    }

    @Test(arguments: ["abc", "zz", "0g"])
    func malformedHexIsRejected(text: String) {
        expectFailure(.invalidBytes) { _ = try ByteString(hex: text) }
    }

    @Test func malformedBase64IsRejected() {
        expectFailure(.invalidBytes) { _ = try ByteString(base64: "***") }
    }

    @Test func certificatesAreReadForIssuerAndSerial() throws {
        let leaf = try Fixtures.pki.certificate(named: "test-leaf")
        let intermediate = try Fixtures.pki.certificate(named: "test-intermediate")
        #expect(leaf.serialNumber == [0x30, 0x01])
        // The leaf's issuer is the intermediate's subject: the 6th field of its tbsCertificate.
        var reader = BERReader(intermediate.der[...])
        var certificate = try reader.read(expecting: .sequence).children()
        var tbs = try certificate.read(expecting: .sequence).children()
        _ = try tbs.read(expecting: .contextSpecific(0, constructed: true))
        for _ in 0..<4 { _ = try tbs.readAny() }
        #expect(Array(try tbs.read(expecting: .sequence).encoded) == leaf.issuerDER)
    }

    @Test func garbageIsNotACertificate() {
        expectFailure(.invalidCertificate) { _ = try ForgeCertificate(der: [0x30, 0x03, 0x02, 0x01]) }
        expectFailure(.invalidCertificate) { _ = try ForgeCertificate(pem: "no armour here") }
    }

    @Test func missingPKIFilesAreReported() {
        expectFailure(.fileUnreadable) { _ = try Fixtures.pki.certificate(named: "no-such-cert") }
    }

    @Test func unknownDigestOrEncodingIsAnInvalidRequest() {
        let plan = SigningPlan(digest: "md5", signers: [], certificates: [])
        expectFailure(.invalidRequest) {
            _ = try MintRequest(receipt: ReceiptDescription(), signing: plan).mint(pki: Fixtures.pki)
        }
        let ber = SigningPlan(signers: [], certificates: [], encoding: "cer")
        expectFailure(.invalidRequest) {
            _ = try MintRequest(receipt: ReceiptDescription(), signing: ber).mint(pki: Fixtures.pki)
        }
        expectFailure(.invalidRequest) {
            _ = try MintRequest(signing: SigningPlan(signers: [], certificates: [])).mint(pki: Fixtures.pki)
        }
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_749_979_800, "2025-06-15T09:30:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (64_060_588_800, "4000-01-01T00:00:00Z"),
    ])
    func formatsInstantsAsRFC3339(seconds: Int64, text: String) {
        #expect(RFC3339.format(secondsSince1970: seconds) == text)
    }

    /// Apple's payloads are DER: attributes sorted by encoding, every inner value DER-encoded.
    @Test func payloadAttributesAreInDERSetOrderWithDEREncodedValues() throws {
        let description = ReceiptDescription(
            receiptType: "Production", appItemID: 300, bundleID: "b", opaqueValue: ByteString([9, 9]),
            ageRating: "4+", creationDate: "2025-01-01T00:00:00Z",
            extraAttributes: [RawAttributeDescription(type: 8, value: [0x16, 0x00])])
        let payload = description.payloadDER()
        var reader = BERReader(payload[...])
        var set = try reader.read(expecting: .set).children()
        var encodings: [[UInt8]] = []
        var values: [Int64: [UInt8]] = [:]
        while let attribute = try set.next() {
            encodings.append(Array(attribute.encoded))
            var fields = try attribute.children()
            let type = try fields.read(expecting: .integer).integerValue()
            #expect(try fields.read(expecting: .integer).integerValue() == 1)
            values[type] = Array(try fields.read(expecting: .octetString).content)
        }
        #expect(encodings == encodings.sorted { $0.lexicographicallyPrecedes($1) })
        #expect(values[0] == [0x0C, 0x0A] + Array("Production".utf8))
        #expect(values[1] == [0x02, 0x02, 0x01, 0x2C])
        #expect(values[2] == [0x0C, 0x01, 0x62])
        #expect(values[4] == [9, 9])
        #expect(values[10] == [0x16, 0x02, 0x34, 0x2B])
        #expect(values[12] == [0x16, 0x14] + Array("2025-01-01T00:00:00Z".utf8))
        #expect(values[8] == [0x16, 0x00])
    }

    @Test func generatedPurchasesAreDeterministicAndMixed() {
        let generated = GeneratedPurchases(
            count: 10, productIDs: ["a", "b"], firstTransactionID: 100, firstPurchaseDate: 1_735_689_600,
            intervalSeconds: 60)
        let purchases = generated.purchases()
        #expect(purchases == generated.purchases())
        #expect(purchases.count == 10)
        #expect(purchases[4].productType == 3)
        #expect(purchases[4].originalTransactionID == "100")
        #expect(purchases[1].productID == "b")
        #expect(purchases[1].purchaseDate == "2025-01-01T00:01:00Z")
    }

    @Test func segmentedEContentSplitsThePayload() throws {
        let identity = try Fixtures.pki.identity(certificate: "test-leaf")
        let payload = ReceiptDescription(bundleID: String(repeating: "x", count: 250)).payloadDER()
        let minted = try ReceiptMinter.mint(
            payload: payload,
            options: SignedDataOptions(
                signers: [SignerOptions(identity: identity)], certificates: [],
                eContentForm: .segmented(maximumSegmentLength: 100)))
        // ContentInfo → [0] → SignedData → encapContentInfo → [0] → constructed OCTET STRING.
        var top = BERReader(minted[...])
        var contentInfo = try top.read(expecting: .sequence).children()
        _ = try contentInfo.read(expecting: .objectIdentifier)
        var explicit = try contentInfo.read(expecting: .contextSpecific(0, constructed: true)).children()
        var signedData = try explicit.read(expecting: .sequence).children()
        _ = try signedData.read(expecting: .integer)
        _ = try signedData.read(expecting: .set)
        var encap = try signedData.read(expecting: .sequence).children()
        _ = try encap.read(expecting: .objectIdentifier)
        var eContent = try encap.read(expecting: .contextSpecific(0, constructed: true)).children()
        let string = try eContent.readAny()
        #expect(string.tag == BERTag(.universal, number: 4, constructed: true))
        var segments = try string.children()
        var count = 0
        while try segments.next() != nil { count += 1 }
        #expect(count == (payload.count + 99) / 100)
        #expect(Array(try string.stringBytes(expecting: .octetString)) == payload)
    }
}
