import Foundation
import ReceiptCrypto
import TestSupport
import Testing

@Suite("ChainVerifier")
struct ChainVerifierTests {
    /// 2026-11-22T00:00:00Z: "now" for these tests, after every Apple receipt leaf expired.
    static let now: Int64 = 1_795_305_600

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func appleChainValidatesAtTheReceiptCreationDate() throws {
        let certificates = try CryptoTestData.embeddedCertificates("aprv-purchasingexp-sandbox-2023-02")
        try #require(certificates.count == 3)
        let created = try CryptoTestData.epoch("2023-02-22T14:30:15Z")
        let result = try ChainVerifier.verify(
            leaf: certificates[0], intermediates: [certificates[1]], anchors: [certificates[2]], at: created)
        #expect(result.isVerified)
        #expect(result.chain.map(\.subject) == certificates.map(\.subject))
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func appleChainHasExpiredNow() throws {
        let certificates = try CryptoTestData.embeddedCertificates("aprv-purchasingexp-sandbox-2023-02")
        try #require(certificates.count == 3)
        let result = try ChainVerifier.verify(
            leaf: certificates[0], intermediates: [certificates[1]], anchors: [certificates[2]], at: Self.now)
        #expect(result.failure == .expired)
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func appleChainIsNotYetValidBeforeTheLeafWasIssued() throws {
        let certificates = try CryptoTestData.embeddedCertificates("aprv-purchasingexp-sandbox-2023-02")
        try #require(certificates.count == 3)
        let result = try ChainVerifier.verify(
            leaf: certificates[0], intermediates: [certificates[1]], anchors: [certificates[2]],
            at: certificates[0].notBefore - 1)
        #expect(result.failure == .notYetValid)
        #expect(result.depth == 0)
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func embeddedRootIsNotTrustedUnlessItIsAnAnchor() throws {
        let certificates = try CryptoTestData.embeddedCertificates("aprv-purchasingexp-sandbox-2023-02")
        try #require(certificates.count == 3)
        let g3 = try CryptoTestData.sharedCertificate("AppleRootCA-G3.cer")
        let result = try ChainVerifier.verify(
            leaf: certificates[0], intermediates: [certificates[1], certificates[2]], anchors: [g3],
            at: try CryptoTestData.epoch("2023-02-22T14:30:15Z"))
        #expect(result.failure == .untrustedRoot)
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func xcodeCertificateIsUntrustedUnlessItIsAnAnchor() throws {
        let xcode = try CryptoTestData.sharedCertificate("StoreKitTestCertificate.cer")
        let apple = try CryptoTestData.sharedCertificate("AppleIncRootCertificate.cer")
        let at = try CryptoTestData.epoch("2023-10-19T01:45:40Z")
        let untrusted = try ChainVerifier.verify(leaf: xcode, intermediates: [], anchors: [apple], at: at)
        #expect(untrusted.failure == .untrustedRoot)
        // Purpose "any": its code-signing EKU must not make it fail once trusted.
        let trusted = try ChainVerifier.verify(leaf: xcode, intermediates: [], anchors: [xcode], at: at)
        #expect(trusted.isVerified)
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func tamperedCertificateSignatureIsReported() throws {
        let certificates = try CryptoTestData.embeddedCertificates("aprv-purchasingexp-sandbox-2023-02")
        try #require(certificates.count == 3)
        var bytes = certificates[0].derEncoded
        bytes[bytes.count - 1] ^= 0x01  // last byte of the signature BIT STRING
        let tampered = try Certificate(derEncoded: bytes[...])
        let result = try ChainVerifier.verify(
            leaf: tampered, intermediates: [certificates[1]], anchors: [certificates[2]],
            at: try CryptoTestData.epoch("2023-02-22T14:30:15Z"))
        #expect(result.failure == .invalidSignature)
        #expect(result.depth == 0)
    }

    /// The project's test PKI is valid 2024–2034; 2025-06-01 lies inside.
    static let testTime: Int64 = 1_748_736_000

    @Test func testPKIChainValidates() throws {
        let result = try ChainVerifier.verify(
            leaf: CryptoTestData.testPKI("test-leaf"), intermediates: [CryptoTestData.testPKI("test-intermediate")],
            anchors: [CryptoTestData.testPKI("test-root")], at: Self.testTime)
        #expect(result.isVerified)
        #expect(result.chain.count == 3)
    }

    @Test func intermediateWithoutCAFlagIsReported() throws {
        let result = try ChainVerifier.verify(
            leaf: CryptoTestData.testPKI("test-leaf-under-not-ca"),
            intermediates: [CryptoTestData.testPKI("test-intermediate-not-ca")],
            anchors: [CryptoTestData.testPKI("test-root")], at: Self.testTime)
        #expect(result.failure == .notACA)
        #expect(result.depth == 1)
    }

    @Test func lookalikeAppleChainDoesNotChainToTheRealRoot() throws {
        let result = try ChainVerifier.verify(
            leaf: CryptoTestData.testPKI("lookalike-apple-leaf"),
            intermediates: [
                CryptoTestData.testPKI("lookalike-apple-wwdr"),
                CryptoTestData.testPKI("lookalike-apple-root"),
            ],
            anchors: [CryptoTestData.testPKI("test-root")], at: Self.testTime)
        #expect(result.failure == .untrustedRoot)
    }

    @Test func partialChainsAreNotAccepted() throws {
        // The intermediate as the only anchor: without X509_V_FLAG_PARTIAL_CHAIN that is not enough
        // when the intermediate is not self-signed.
        let result = try ChainVerifier.verify(
            leaf: CryptoTestData.testPKI("test-leaf"), intermediates: [],
            anchors: [CryptoTestData.testPKI("test-intermediate")], at: Self.testTime)
        #expect(!result.isVerified)
    }

    @Test func expiredLeafIsReported() throws {
        let result = try ChainVerifier.verify(
            leaf: CryptoTestData.testPKI("test-leaf-expired"),
            intermediates: [CryptoTestData.testPKI("test-intermediate")],
            anchors: [CryptoTestData.testPKI("test-root")], at: Self.testTime)
        #expect(result.failure == .expired)
        #expect(result.depth == 0)
    }

    /// OpenSSL 3 says "unable to get local issuer certificate" here; a certificate with the issuer's
    /// name is present but did not sign the leaf, so the verifier reports a bad signature.
    @Test func presentIssuerThatDidNotSignIsABadSignature() throws {
        let result = try ChainVerifier.verify(
            leaf: CryptoTestData.testPKI("test-leaf-forged-issuer"),
            intermediates: [CryptoTestData.testPKI("test-intermediate")],
            anchors: [CryptoTestData.testPKI("test-root")], at: Self.testTime)
        #expect(result.failure == .invalidSignature)
    }

    /// Nothing bearing the issuer's name is present: the bytes cannot decide, which is not the same as an
    /// untrusted root (the verifier reports it as `chain.incomplete`, inconclusive).
    @Test func absentIssuerMeansTheChainCannotBeCompleted() throws {
        let result = try ChainVerifier.verify(
            leaf: CryptoTestData.testPKI("test-leaf-forged-issuer"), intermediates: [],
            anchors: [CryptoTestData.testPKI("test-root")], at: Self.testTime)
        #expect(result.failure == .issuerMissing)
        #expect(result.depth == 0)
    }

    /// Apple's names without Apple's root: the missing issuer is not completed by a name, only by a
    /// certificate (an anchor) whose key signed the intermediate.
    @Test func lookalikeChainWithoutItsRootCannotBeCompleted() throws {
        let result = try ChainVerifier.verify(
            leaf: CryptoTestData.testPKI("lookalike-apple-leaf"),
            intermediates: [CryptoTestData.testPKI("lookalike-apple-wwdr")],
            anchors: [CryptoTestData.testPKI("test-root")], at: Self.testTime)
        #expect(!result.isVerified)
        #expect(result.failure == .issuerMissing)
        #expect(result.depth == 1)
    }

    /// OpenSSL passes over an issuer whose key identifier is not the one the leaf's authority key identifier
    /// names, even when that issuer's key signed the leaf, and says "unable to get local issuer certificate".
    /// The issuer is there and signed: the chain is refused (`.other`), not incomplete.
    @Test(.enabled(if: OpenSSLTool.executable != nil, "openssl is not on PATH: certificates cannot be made"))
    func presentIssuerThatSignedButWasPassedOverIsNotMissing() throws {
        let folder = try TemporaryFolder()
        try folder.write("leaf.ext", Data("authorityKeyIdentifier=keyid:always\n".utf8))
        func selfSigned(_ file: String, keyIdentifier: String) -> [String] {
            [
                "req", "-x509", "-key", "ca.key", "-out", file, "-subj", "/CN=Receipt Forge Test AKID CA", "-days",
                "3650",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
                "-addext", "subjectKeyIdentifier=\(keyIdentifier)",
            ]
        }
        let steps: [[String]] = [
            ["genrsa", "-out", "ca.key", "2048"],
            selfSigned("ca.pem", keyIdentifier: "0102030405060708090A0B0C0D0E0F1011121314"),
            // Same name, same key, another key identifier: the leaf's authority key identifier names this one.
            selfSigned("other-id.pem", keyIdentifier: "AABBCCDDEEFF00112233445566778899AABBCCDD"),
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=Leaf"],
            [
                "x509", "-req", "-in", "leaf.csr", "-CA", "other-id.pem", "-CAkey", "ca.key", "-set_serial", "2",
                "-extfile", "leaf.ext", "-out", "leaf.pem", "-days", "365",
            ],
        ]
        for step in steps { try #require(try OpenSSLTool.run(step, in: folder.url) == 0, "openssl \(step)") }
        func certificate(_ file: String) throws -> Certificate {
            let bytes = try SharedTestData.bytes(at: folder.url.appendingPathComponent(file))
            return try #require(try Certificate.certificates(fromFileContents: bytes).first)
        }
        let leaf = try certificate("leaf.pem")
        let issuer = try certificate("ca.pem")
        #expect(leaf.isSigned(by: issuer))
        let result = try ChainVerifier.verify(leaf: leaf, intermediates: [], anchors: [issuer], at: leaf.notBefore + 60)
        #expect(result.failure == .other, "\(result.message)")
        #expect(result.depth == 0)
    }

    @Test func signatureCheckIgnoresNames() throws {
        let leaf = try CryptoTestData.testPKI("test-leaf")
        #expect(leaf.isSigned(by: try CryptoTestData.testPKI("test-intermediate")))
        #expect(!leaf.isSigned(by: try CryptoTestData.testPKI("test-intermediate-impostor")))
    }
}
