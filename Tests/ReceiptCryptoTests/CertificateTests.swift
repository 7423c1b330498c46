import Foundation
import ReceiptCrypto
import TestSupport
import Testing

/// Reads certificates for the crypto tests: Apple's public roots from `../shared/certs`, certificates
/// embedded in the real receipts, and the project's own test PKI in `certs/`.
enum CryptoTestData {
    static func sharedCertificate(_ file: String) throws -> Certificate {
        let bytes = try SharedTestData.bytes(at: SharedTestData.certsDirectory.appendingPathComponent(file))
        return try Certificate(derEncoded: bytes[...])
    }

    static func testPKI(_ name: String) throws -> Certificate {
        let url = SharedTestData.packageRoot.appendingPathComponent("certs/\(name).pem")
        let certificates = try Certificate.certificates(fromFileContents: SharedTestData.bytes(at: url))
        return try #require(certificates.first)
    }

    /// The certificates embedded in a real receipt, found by scanning for DER `SEQUENCE { SEQUENCE …`
    /// headers with two-byte lengths and keeping what OpenSSL parses. Test-only: the library reads them
    /// through the BER reader.
    static func embeddedCertificates(_ receipt: String) throws -> [Certificate] {
        let bytes = try SharedTestData.receiptBytes(receipt)
        var found: [Certificate] = []
        var index = 0
        while index + 8 < bytes.count {
            if bytes[index] == 0x30, bytes[index + 1] == 0x82, bytes[index + 4] == 0x30, bytes[index + 5] == 0x82 {
                let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
                let end = index + 4 + length
                if end <= bytes.count, let certificate = try? Certificate(derEncoded: bytes[index..<end]) {
                    found.append(certificate)
                    index = end
                    continue
                }
            }
            index += 1
        }
        return found
    }

    static func epoch(_ iso: String) throws -> Int64 {
        let formatter = ISO8601DateFormatter()
        let date = try #require(formatter.date(from: iso))
        return Int64(date.timeIntervalSince1970)
    }

    static let appleRootFingerprint = "B0B1730ECBC7FF4505142C49F1295E6EDA6BCAED7E2C68C5BE91B5A11001F024"
    static let appleRootG3Fingerprint = "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179"
    static let xcodeFingerprint = "FF0BA36E721D2DB741D2AA11E6112EF78BF7131B46C7F035B00891D045C864FE"
    static let leafMarker = "1.2.840.113635.100.6.11.1"
    static let intermediateMarker = "1.2.840.113635.100.6.2.1"
}

@Suite("Certificate")
struct CertificateTests {
    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func readsTheAppleRootCA() throws {
        let root = try CryptoTestData.sharedCertificate("AppleIncRootCertificate.cer")
        #expect(root.sha256FingerprintHex == CryptoTestData.appleRootFingerprint)
        #expect(root.subject == "CN=Apple Root CA,OU=Apple Certification Authority,O=Apple Inc.,C=US")
        #expect(root.issuer == root.subject)
        #expect(root.isSelfIssued)
        #expect(root.isCA)
        #expect(root.notBefore == (try CryptoTestData.epoch("2006-04-25T21:40:36Z")))
        #expect(root.notAfter == (try CryptoTestData.epoch("2035-02-09T21:40:36Z")))
        #expect(root.serialNumber == [0x02])
        #expect(root.publicKey.isRSA)
        #expect(root.publicKey.bitCount == 2048)
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func fingerprintsMatchThePinnedValues() throws {
        #expect(
            try CryptoTestData.sharedCertificate("AppleRootCA-G3.cer").sha256FingerprintHex
                == CryptoTestData.appleRootG3Fingerprint)
        let xcode = try CryptoTestData.sharedCertificate("StoreKitTestCertificate.cer")
        #expect(xcode.sha256FingerprintHex == CryptoTestData.xcodeFingerprint)
        #expect(xcode.isSelfIssued)
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func readsTheEmbeddedChainOfARealReceipt() throws {
        let name = "aprv-purchasingexp-sandbox-2023-02"
        let certificates = try CryptoTestData.embeddedCertificates(name)
        try #require(certificates.count == 3)
        let json = try SharedTestData.decodedJSON(name)
        let expected = try #require(json["certificates"] as? [[String: Any]])
        for (certificate, reference) in zip(certificates, expected) {
            #expect(certificate.sha256FingerprintHex.lowercased() == reference["sha256_fingerprint"] as? String)
            let serialHex = certificate.serialNumber.map { String(format: "%02x", $0) }.joined()
            let expectedSerial = try #require(reference["serial"] as? String)
            #expect(serialHex.drop { $0 == "0" } == expectedSerial.drop { $0 == "0" })
            #expect(certificate.notBefore == (try CryptoTestData.epoch(#require(reference["not_before"] as? String))))
            #expect(certificate.notAfter == (try CryptoTestData.epoch(#require(reference["not_after"] as? String))))
        }
        let (leaf, intermediate, root) = (certificates[0], certificates[1], certificates[2])
        #expect(leaf.hasExtension(CryptoTestData.leafMarker))
        #expect(!leaf.hasExtension(CryptoTestData.intermediateMarker))
        #expect(intermediate.hasExtension(CryptoTestData.intermediateMarker))
        #expect(!leaf.isCA)
        #expect(intermediate.isCA)
        #expect(leaf.issuer == intermediate.subject)
        #expect(root.sha256FingerprintHex == CryptoTestData.appleRootFingerprint)
    }

    @Test func rejectsBytesThatAreNotACertificate() {
        expectCryptoError(.invalidCertificate) {
            _ = try Certificate(derEncoded: [0x30, 0x03, 0x02, 0x01, 0x00][...])
        }
        expectCryptoError(.invalidCertificate) {
            _ = try Certificate(derEncoded: [][...])
        }
    }

    @Test func rejectsTrailingBytes() throws {
        let leaf = try CryptoTestData.testPKI("test-leaf")
        expectCryptoError(.invalidCertificate) {
            _ = try Certificate(derEncoded: (leaf.derEncoded + [0x00])[...])
        }
    }

    @Test func loadsPEMAndDERFiles() throws {
        let url = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem")
        let pem = try SharedTestData.bytes(at: url)
        let fromPEM = try Certificate.certificates(fromFileContents: pem)
        try #require(fromPEM.count == 1)
        let fromDER = try Certificate.certificates(fromFileContents: fromPEM[0].derEncoded)
        #expect(fromDER.map(\.sha256Fingerprint) == fromPEM.map(\.sha256Fingerprint))
        let twoBlocks = try Certificate.certificates(fromFileContents: pem + pem)
        #expect(twoBlocks.count == 2)
        expectCryptoError(.invalidCertificate) {
            _ = try Certificate.certificates(fromFileContents: Array("-----BEGIN CERTIFICATE-----\nnope\n".utf8))
        }
    }
}

extension CertificateTests {
    /// A PEM file is read block by block: blocks of another kind (a key, say) are skipped, as OpenSSL's own
    /// certificate reader skips them, and a certificate block with headers (how PEM marks an encrypted block) is
    /// refused rather than handed to a password prompt.
    @Test func pemFilesSkipOtherBlocksAndRefuseHeaders() throws {
        let url = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem")
        let pem = String(decoding: try SharedTestData.bytes(at: url), as: UTF8.self)
        let other = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"
        let skipped = try Certificate.certificates(fromFileContents: Array((other + pem).utf8))
        #expect(skipped.count == 1)
        let oldLabel = pem.replacingOccurrences(of: " CERTIFICATE-----", with: " X509 CERTIFICATE-----")
        #expect(try Certificate.certificates(fromFileContents: Array(oldLabel.utf8)).count == 1)
        let headers = "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00000000000000000000000000000000\n\n"
        let withHeaders = pem.replacingOccurrences(
            of: "-----BEGIN CERTIFICATE-----\n", with: "-----BEGIN CERTIFICATE-----\n" + headers)
        #expect(withHeaders != pem)
        expectCryptoError(.invalidCertificate) {
            _ = try Certificate.certificates(fromFileContents: Array(withHeaders.utf8))
        }
    }
}

/// Expects `body` to throw a ``CryptoError`` with `code` (codes, never messages).
func expectCryptoError(
    _ code: CryptoError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as CryptoError {
        #expect(error.code == code, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
