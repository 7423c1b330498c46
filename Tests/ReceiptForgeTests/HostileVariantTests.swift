import BER
import Foundation
import ReceiptCrypto
import ReceiptForge
import ReceiptModel
import Testing

/// Each hostile fixture is broken in exactly the way it claims, and otherwise sound: read with the
/// project's decoder and checked with the crypto layer, independently of OpenSSL's CMS code.
@Suite struct HostileVariantTests {
    static func receipt(_ name: String) throws -> AppReceipt {
        try AppReceipt(berEncoded: Fixtures.receiptBytes(name, Fixtures.request(name)))
    }

    /// The embedded certificate a SignerInfo names by issuer and serial, if any.
    static func signerCertificate(_ signer: SignerInfo, in signedData: SignedData) throws -> Certificate? {
        for der in signedData.certificates {
            let certificate = try Certificate(derEncoded: der)
            if certificate.issuerDER[...] == signer.issuer, certificate.serialNumber[...] == signer.serialNumber {
                return certificate
            }
        }
        return nil
    }

    struct UnexpectedDigest: Error { let oid: String }

    static func digestAlgorithm(_ signer: SignerInfo) throws -> DigestAlgorithm {
        switch signer.digestAlgorithm.algorithm.description {
        case "1.3.14.3.2.26": return .sha1
        case "2.16.840.1.101.3.4.2.1": return .sha256
        case let other: throw UnexpectedDigest(oid: other)
        }
    }

    /// Whether the signature verifies with `key` over the content or the signed attributes.
    static func signatureVerifies(_ signer: SignerInfo, _ signedData: SignedData, key: PublicKey) throws -> Bool {
        let algorithm = try digestAlgorithm(signer)
        let signed: [UInt8] = signer.signedAttributes.map { [0x31] + $0.dropFirst() } ?? Array(signedData.eContent)
        return try key.verifyRSAPKCS1(
            signature: signer.signature, digest: algorithm.hash(signed[...]), algorithm: algorithm)
    }

    /// The test leaf's public key, from its test-only private key.
    static var leafKey: PublicKey {
        get throws {
            let spki = try PrivateKey(pem: Fixtures.pki.privateKeyPEM(named: "test-leaf")).subjectPublicKeyInfo()
            return try PublicKey(subjectPublicKeyInfo: spki[...])
        }
    }

    @Test func validFixtureSignatureVerifiesWithTheEmbeddedLeaf() throws {
        let receipt = try Self.receipt("valid-sha256")
        let signer = try #require(receipt.signedData.signerInfos.first)
        let certificate = try #require(try Self.signerCertificate(signer, in: receipt.signedData))
        #expect(try Self.signatureVerifies(signer, receipt.signedData, key: certificate.publicKey))
        #expect(receipt.signedData.certificates.count == 3)
    }

    @Test func tamperedPayloadStillDecodesButNoLongerMatchesItsSignature() throws {
        let receipt = try Self.receipt("tampered-payload")
        #expect(receipt.payload.applicationVersion == "9.9.9")
        let signer = try #require(receipt.signedData.signerInfos.first)
        #expect(try !Self.signatureVerifies(signer, receipt.signedData, key: try Self.leafKey))
    }

    @Test func wrongKeySignatureFailsUnderTheNamedLeaf() throws {
        let receipt = try Self.receipt("wrong-signing-key")
        let signer = try #require(receipt.signedData.signerInfos.first)
        let certificate = try #require(try Self.signerCertificate(signer, in: receipt.signedData))
        #expect(certificate.subject.contains("Receipt Forge Test Receipt Signing"))
        #expect(try !Self.signatureVerifies(signer, receipt.signedData, key: certificate.publicKey))
    }

    @Test func swappedLeafHasTheSignersIssuerAndSerialButAnotherKey() throws {
        let receipt = try Self.receipt("swapped-leaf-certificate")
        let signer = try #require(receipt.signedData.signerInfos.first)
        let impostor = try #require(try Self.signerCertificate(signer, in: receipt.signedData))
        #expect(impostor.derEncoded != (try Fixtures.pki.certificate(named: "test-leaf").der))
        #expect(try !Self.signatureVerifies(signer, receipt.signedData, key: impostor.publicKey))
        #expect(try Self.signatureVerifies(signer, receipt.signedData, key: try Self.leafKey))
    }

    @Test func twoSignersAreBothGenuine() throws {
        let receipt = try Self.receipt("two-signers")
        #expect(receipt.signedData.signerInfos.count == 2)
        for signer in receipt.signedData.signerInfos {
            let certificate = try #require(try Self.signerCertificate(signer, in: receipt.signedData))
            #expect(try Self.signatureVerifies(signer, receipt.signedData, key: certificate.publicKey))
        }
    }

    @Test func noSignerHasAnEmptySignerInfos() throws {
        let receipt = try Self.receipt("no-signer")
        #expect(receipt.signedData.signerInfos.isEmpty)
        #expect(receipt.signedData.certificates.count == 3)
    }

    @Test func missingSignerCertificateIsNotEmbedded() throws {
        let receipt = try Self.receipt("signer-certificate-missing")
        let signer = try #require(receipt.signedData.signerInfos.first)
        #expect(try Self.signerCertificate(signer, in: receipt.signedData) == nil)
        #expect(try Self.signatureVerifies(signer, receipt.signedData, key: try Self.leafKey))
    }

    @Test func wrongMessageDigestIsSignedButDoesNotMatchTheContent() throws {
        let receipt = try Self.receipt("wrong-message-digest")
        let signer = try #require(receipt.signedData.signerInfos.first)
        #expect(signer.signedAttributes != nil)
        let digest = try Self.digestAlgorithm(signer).hash(receipt.signedData.eContent)
        #expect(signer.messageDigest.map(Array.init) != digest)
        #expect(try Self.signatureVerifies(signer, receipt.signedData, key: try Self.leafKey))
        // The honest variant, for contrast.
        let honest = try Self.receipt("valid-signed-attributes")
        let honestSigner = try #require(honest.signedData.signerInfos.first)
        #expect(
            honestSigner.messageDigest.map(Array.init)
                == (try Self.digestAlgorithm(honestSigner).hash(honest.signedData.eContent)))
    }

    @Test func lookalikeChainCopiesApplesNamesButNotItsRoot() throws {
        let receipt = try Self.receipt("lookalike-apple-chain")
        let certificates = try receipt.signedData.certificates.map { try Certificate(derEncoded: $0) }
        #expect(certificates.map(\.subject).contains { $0.contains("Apple Root CA") })
        #expect(
            certificates.contains { $0.subject.contains("Apple Worldwide Developer Relations Certification Authority") }
        )
        // Apple Root CA's SHA-256 fingerprint (`docs/receipt-format.md` §2): the lookalike must not have it.
        let appleRoot = "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024"
        #expect(!certificates.map { ByteString.hex($0.sha256Fingerprint) }.contains(appleRoot))
        #expect(certificates.contains { $0.extensionOIDs.contains("1.2.840.113635.100.6.11.1") })
        #expect(certificates.contains { $0.extensionOIDs.contains("1.2.840.113635.100.6.2.1") })
    }

    @Test(arguments: [
        ("leaf-without-marker", "1.2.840.113635.100.6.11.1", false),
        ("valid-sha256", "1.2.840.113635.100.6.11.1", true),
        ("expired-leaf", "1.2.840.113635.100.6.11.1", true),
    ])
    func leafMarkerIsPresentOnlyWhereIntended(name: String, marker: String, present: Bool) throws {
        let receipt = try Self.receipt(name)
        let signer = try #require(receipt.signedData.signerInfos.first)
        let leaf = try #require(try Self.signerCertificate(signer, in: receipt.signedData))
        #expect(leaf.extensionOIDs.contains(marker) == present)
        #expect(try Self.signatureVerifies(signer, receipt.signedData, key: leaf.publicKey))
    }

    @Test func expiredLeafIsOutsideItsValidityAtTheValidationTime() throws {
        let receipt = try Self.receipt("expired-leaf")
        let creation = try #require(receipt.payload.creationDate).secondsSince1970
        let signer = try #require(receipt.signedData.signerInfos.first)
        let leaf = try #require(try Self.signerCertificate(signer, in: receipt.signedData))
        #expect(leaf.notAfter < creation)
    }

    @Test func nonCAIntermediateIsMarkedButNotACA() throws {
        let receipt = try Self.receipt("intermediate-not-ca")
        let certificates = try receipt.signedData.certificates.map { try Certificate(derEncoded: $0) }
        let intermediate = try #require(certificates.first { $0.subject.contains("Not A CA") })
        #expect(!intermediate.isCA)
        #expect(intermediate.extensionOIDs.contains("1.2.840.113635.100.6.2.1"))
    }
}
