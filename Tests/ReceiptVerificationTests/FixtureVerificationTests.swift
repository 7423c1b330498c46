import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

/// Every receipt the forge minted, with the verdict and reason its `expected.json` states.
@Suite("Forge fixtures")
struct FixtureVerificationTests {
    @Test func fixturesArePresent() {
        #expect(VerificationTestData.fixtureNames.count >= 20)
    }

    @Test(arguments: VerificationTestData.fixtureNames)
    func fixtureGetsItsExpectedVerdict(name: String) throws {
        let fixture = try VerificationTestData.fixture(name)
        let verdict = try VerificationTestData.fixtureVerifier().verify(fixture.bytes)
        #expect(verdict.outcome.rawValue == fixture.verdict, "\(verdict.reasons)")
        #expect(verdict.reason?.code.description == fixture.reason, "\(verdict.reasons)")
        if let time = fixture.validationTime, verdict.reason?.code != .receiptMalformed {
            #expect(verdict.validationInstant == ReceiptDate(rfc3339: time))
        }
        switch verdict.outcome {
        case .valid: #expect(verdict.verifiedReceipt != nil)
        default: #expect(verdict.verifiedReceipt == nil)
        }
    }

    /// Without the test root as an anchor no fixture is valid: one that embeds the root ends at an untrusted
    /// self-signed certificate (invalid); one that does not cannot be completed offline (inconclusive).
    @Test func validFixturesAreNeverValidWithoutTheTestRoot() throws {
        let verifier = ReceiptVerifier()
        for name in VerificationTestData.fixtureNames where name.hasPrefix("valid-") {
            let verdict = verifier.verify(try VerificationTestData.fixture(name).bytes)
            let embedsRoot = name != "valid-chain-without-root"
            #expect(verdict.outcome == (embedsRoot ? .invalid : .inconclusive), "\(name)")
            #expect(verdict.reason?.code == (embedsRoot ? .chainUntrustedRoot : .chainIncomplete), "\(name)")
        }
    }

    /// Apple's names on the project's keys: untrusted with Apple's pins alone, and still not valid when
    /// Apple's real root is also loaded from a file.
    @Test func lookalikeAppleChainIsNeverValid() throws {
        let bytes = try VerificationTestData.fixture("lookalike-apple-chain").bytes
        let pinsOnly = ReceiptVerifier().verify(bytes)
        #expect(pinsOnly.outcome == .invalid)
        #expect(pinsOnly.reason?.code == .chainUntrustedRoot)
        if SharedTestData.isAvailable {
            var anchors = TrustAnchors()
            try anchors.addRoots(
                fromPath: SharedTestData.certsDirectory.appendingPathComponent("AppleIncRootCertificate.cer").path)
            let withRealRoot = ReceiptVerifier(configuration: .init(trustAnchors: anchors)).verify(bytes)
            #expect(withRealRoot.outcome == .invalid)
        }
    }

    @Test func expiredLeafAlsoReportsTheCreationDateOutsideItsValidity() throws {
        let verdict = try VerificationTestData.fixtureVerifier().verify(
            VerificationTestData.fixture("expired-leaf").bytes)
        #expect(verdict.reasons.map(\.code).contains(.chainCreationDateOutsideLeafValidity))
    }

    @Test func garbageIsMalformedNotThrown() {
        let verifier = ReceiptVerifier()
        for bytes: [UInt8] in [[], [0x30], [0x30, 0x80, 0x00], Array("not a receipt".utf8), Array("{ a = b; }".utf8)] {
            let verdict = verifier.verify(bytes)
            #expect(verdict.outcome == .invalid)
            #expect(verdict.reason?.code == .receiptMalformed)
            #expect(verdict.decodingError != nil && verdict.receipt == nil)
        }
    }

    @Test func fixtureDirectoryAnchorsLoad() throws {
        var anchors = TrustAnchors()
        try anchors.addRoots(fromPath: VerificationTestData.certsDirectory.path)
        #expect(anchors.additionalRoots.count > 10)
        #expect(throws: VerificationError.self) {
            var missing = TrustAnchors()
            try missing.addRoots(fromPath: "/nonexistent/roots")
        }
    }

    /// A folder's roots are its `.pem`, `.crt`, `.cer` and `.der` files, the extension in any case; a hidden file named
    /// `.pem` has no extension, and other files are not read (garbage in them does not fail the load). A symbolic link
    /// to the folder is the folder.
    @Test func aFolderOfRootsIsReadByExtension() throws {
        let name = "roots-\(UUID().uuidString)"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        let link = FileManager.default.temporaryDirectory.appendingPathComponent(name + "-link")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: folder)
        defer {
            try? FileManager.default.removeItem(at: link)
            try? FileManager.default.removeItem(at: folder)
        }
        let certs = VerificationTestData.certsDirectory
        try FileManager.default.copyItem(
            at: certs.appendingPathComponent("test-root.pem"), to: folder.appendingPathComponent("first.pem"))
        try FileManager.default.copyItem(
            at: certs.appendingPathComponent("other-root.pem"), to: folder.appendingPathComponent("second.root.CRT"))
        for name in [".pem", "notes.txt", "pem", "trailing.pem.bak"] {
            try Data("not a certificate".utf8).write(to: folder.appendingPathComponent(name))
        }
        for path in [folder.path, folder.path + "/", link.path] {
            var anchors = TrustAnchors()
            try anchors.addRoots(fromPath: path)
            #expect(anchors.additionalRoots.count == 2, "\(path)")
        }
    }
}

@Suite("Hostile variations")
struct HostileVariationTests {
    /// The SHA-256 OID's DER (2.16.840.1.101.3.4.2.1) and SHA-224's (…2.4), which this verifier does not implement.
    static let sha256OID: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]

    /// SHA-224 (the last byte of the SHA-256 OID changed): Apple never signs with it, so the receipt is not Apple's.
    @Test func aDigestAppleNeverUsesIsInvalid() throws {
        var bytes = try VerificationTestData.fixture("valid-sha256").bytes
        var replaced = 0
        var index = 0
        while index + Self.sha256OID.count <= bytes.count {
            if Array(bytes[index..<(index + Self.sha256OID.count)]) == Self.sha256OID {
                bytes[index + Self.sha256OID.count - 1] = 0x04
                replaced += 1
            }
            index += 1
        }
        try #require(replaced >= 1)
        let verdict = try VerificationTestData.fixtureVerifier().verify(bytes)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .signatureAlgorithmRejected)
    }

    /// RSASSA-PSS (1.2.840.113549.1.1.10) named as the SignerInfo's signature algorithm: Apple signs receipts with
    /// PKCS#1 v1.5 only, so a PSS receipt is not Apple's (it used to be "inconclusive" and went to Apple).
    @Test func aSignatureAlgorithmAppleNeverUsesIsInvalid() throws {
        var bytes = try VerificationTestData.fixture("valid-sha256").bytes
        // The PKCS#1 arc, 1.2.840.113549.1.1.x: its last occurrence is the SignerInfo's signatureAlgorithm (the
        // certificates, which carry it too, come first; the signature bytes after it are random).
        let pkcs1Arc: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01]
        let start = try #require(
            bytes.indices.reversed().first { bytes[$0...].starts(with: pkcs1Arc) })
        bytes[start + pkcs1Arc.count] = 0x0A
        let verdict = try VerificationTestData.fixtureVerifier().verify(bytes)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .signatureAlgorithmRejected)
    }

    /// Random byte flips, insertions and deletions in a valid receipt: every call returns a verdict, and a
    /// mutant is `valid` only when what the signature and chain cover is byte for byte the original's.
    @Test func mutatedReceiptsAreValidOnlyWhenTheSignedBytesSurvive() throws {
        let original = try VerificationTestData.fixture("valid-sha256").bytes
        // The fixture's root comes from the configured anchor (certs/test-root.pem): the embedded copy is not
        // on the verified path, so only the leaf and the intermediate must survive unchanged.
        let outcomes = try Self.verifyMutants(
            of: original, using: VerificationTestData.fixtureVerifier(), pathCertificates: 2,
            seed: 0xD1B5_4A32_D192_ED03)
        #expect(outcomes[.invalid, default: 0] > 300)
    }

    /// The same over a real Apple receipt, at its creation date, with only Apple's pinned root trusted.
    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func mutatedAppleReceiptsAreValidOnlyWhenTheSignedBytesSurvive() throws {
        let original = try SharedTestData.receiptBytes("aprv-purchasingexp-sandbox-2023-02")
        #expect(ReceiptVerifier().verify(original).outcome == .valid)
        // Apple's root is trusted because the receipt embeds it (pinned by fingerprint): all three are on the path.
        let outcomes = try Self.verifyMutants(
            of: original, using: ReceiptVerifier(), pathCertificates: 3, seed: 0x5EED_A991_E000_0001)
        #expect(outcomes[.invalid, default: 0] > 300)
    }

    /// Verifies 400 seeded mutants of `original` and checks that each valid one still carries the original
    /// payload, signed attributes, signature and the first `pathCertificates` embedded certificates (those
    /// on the verified path); returns how many got each outcome.
    static func verifyMutants(
        of original: [UInt8], using verifier: ReceiptVerifier, pathCertificates: Int, seed: UInt64
    ) throws
        -> [Verdict.Outcome: Int]
    {
        let reference = try AppReceipt(berEncoded: original).signedData
        let referenceSigner = try #require(reference.signerInfos.first)
        var generator = SplitMix64(seed: seed)
        func next() -> Int { Int(truncatingIfNeeded: generator.next() >> 1) }
        var outcomes: [Verdict.Outcome: Int] = [:]
        for _ in 0..<400 {
            var bytes = original
            let index = next() % bytes.count
            switch next() % 3 {
            case 0: bytes[index] ^= UInt8(truncatingIfNeeded: 1 + next() % 255)
            case 1: bytes.remove(at: index)
            default: bytes.insert(UInt8(truncatingIfNeeded: next()), at: index)
            }
            let verdict = verifier.verify(bytes)
            outcomes[verdict.outcome, default: 0] += 1
            guard verdict.outcome == .valid else { continue }
            // BER leaves room for harmless re-encodings (a length form, an unused tag bit); the signed
            // content, the signature and the certificates must not move by a single byte.
            let mutant = try AppReceipt(berEncoded: bytes).signedData
            let signer = try #require(mutant.signerInfos.first)
            #expect(Array(mutant.eContent) == Array(reference.eContent), "mutation at \(index) changed the payload")
            #expect(Array(signer.signature) == Array(referenceSigner.signature))
            #expect(
                mutant.certificates.prefix(pathCertificates).map(Array.init)
                    == reference.certificates.prefix(pathCertificates).map(Array.init),
                "mutation at \(index) changed a certificate on the path")
            #expect(signer.signedAttributes.map(Array.init) == referenceSigner.signedAttributes.map(Array.init))
        }
        return outcomes
    }
}

/// The StoreKit Testing certificate's key ships with Xcode, so with the Xcode opt-in it may vouch
/// only for receipts it signs itself: a full chain that ends at it must not be valid (or be given
/// whatever environment its receipt type claims).
@Suite("Xcode anchor scope")
struct XcodeAnchorScopeTests {
    @Test func aChainIssuedUnderTheXcodeCertificateIsUntrusted() throws {
        // Stand the test root in for the StoreKit Testing certificate: its key is ours, as Xcode's is everyone's.
        let rootFile = VerificationTestData.certsDirectory.appendingPathComponent("test-root.pem")
        let root = try #require(
            try Certificate.certificates(fromFileContents: SharedTestData.bytes(at: rootFile)).first)
        var anchors = TrustAnchors(pinnedFingerprints: [], allowsXcodeStoreKitTesting: true)
        anchors.xcodeTestingFingerprint = root.sha256Fingerprint
        let verifier = ReceiptVerifier(configuration: .init(trustAnchors: anchors))
        let verdict = verifier.verify(try VerificationTestData.fixture("valid-sha256").bytes)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .chainUntrustedRoot)
    }
}
