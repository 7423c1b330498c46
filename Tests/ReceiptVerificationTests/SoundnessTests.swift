import Foundation
import ReceiptForge
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

/// One rule decides every verdict: every check that can be decided is decided, and `inconclusive` is left only
/// when nothing decided proves the receipt false. Each test here is a forgery that an undecidable condition
/// (an algorithm, a missing instant, a key) used to hide behind.
@Suite("Soundness: no provable failure hidden behind an undecidable one")
struct SoundnessTests {
    static let pki = TestPKI(directory: VerificationTestData.certsDirectory)

    /// The fixture description `name`, to be changed and minted again.
    static func request(_ name: String) throws -> MintRequest {
        let file = VerificationTestData.fixturesDirectory.appendingPathComponent("descriptions/\(name).json")
        return try MintRequest(json: Data(contentsOf: file))
    }

    static func verifier() throws -> ReceiptVerifier { try VerificationTestData.fixtureVerifier() }

    // MARK: - Algorithms Apple never signs with

    /// SHA-384 is a fine digest, but no Apple receipt was ever signed with it: a receipt naming it is not Apple's.
    @Test(arguments: ["sha384", "sha512"])
    func digestsAppleNeverUsesAreInvalid(digest: String) throws {
        var request = try Self.request("valid-sha256")
        request.signing.digest = digest
        let verdict = try Self.verifier().verify(request.mint(pki: Self.pki))
        #expect(verdict.outcome == .invalid, "\(verdict.reasons)")
        #expect(verdict.reason?.code == .signatureAlgorithmRejected)
    }

    /// A receipt signed with SHA-1 whose SignerInfo claims sha256WithRSAEncryption: the algorithms contradict
    /// each other, which no Apple receipt does.
    @Test func aSignatureAlgorithmThatContradictsTheDigestIsInvalid() throws {
        var request = try Self.request("valid-sha256")
        request.signing.digest = "sha1"
        var bytes = try request.mint(pki: Self.pki)
        let pkcs1Arc: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01]
        let start = try #require(bytes.indices.reversed().first { bytes[$0...].starts(with: pkcs1Arc) })
        bytes[start + pkcs1Arc.count] = 0x0B  // sha256WithRSAEncryption under a SHA-1 digest
        let verdict = try Self.verifier().verify(bytes)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .signatureAlgorithmRejected)
    }

    // MARK: - No instant to validate at

    /// `receiptCreation` without a creation date leaves the validity periods undecided, but a lookalike root is
    /// still provably untrusted and a tampered payload still provably altered.
    @Test(arguments: [
        ("lookalike-apple-chain", Reason.Code.chainUntrustedRoot),
        ("tampered-payload", .signatureMismatch),
        ("leaf-without-marker", .chainLeafMarkerMissing),
        ("unrelated-root", .chainUntrustedRoot),
    ])
    func forgeriesWithoutACreationDateAreInvalid(name: String, code: Reason.Code) throws {
        var request = try Self.request(name)
        request.receipt?.creationDate = nil
        let verdict = try Self.verifier().verify(request.mint(pki: Self.pki))
        #expect(verdict.outcome == .invalid, "\(verdict.reasons)")
        #expect(verdict.reason?.code == code, "\(verdict.reasons)")
        #expect(verdict.reasons.contains { $0.code == .chainValidationTimeUnavailable })
    }

    /// Without a creation date and with nothing else wrong, nothing is proven: inconclusive, and the signature
    /// was checked (the reasons say only that the instant is missing).
    @Test func aSoundReceiptWithoutACreationDateIsInconclusive() throws {
        var request = try Self.request("valid-sha256")
        request.receipt?.creationDate = nil
        let verdict = try Self.verifier().verify(request.mint(pki: Self.pki))
        #expect(verdict.outcome == .inconclusive)
        #expect(verdict.reasons.map(\.code) == [.chainValidationTimeUnavailable])
    }

    /// With the chain incomplete (inconclusive), a policy the receipt breaks still decides: invalid, never sent on.
    @Test func aPolicyFailureDecidesAnIncompleteChain() throws {
        var request = try Self.request("valid-sha256")
        request.signing.certificates.removeAll { $0 == "test-root" }
        let verdict = ReceiptVerifier().verify(
            try request.mint(pki: Self.pki), policy: ReceiptPolicy(acceptedBundleIDs: ["com.other.app"]))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .policyBundleIDRejected)
        #expect(verdict.reasons.contains { $0.code == .chainIncomplete })
    }

    // MARK: - Keys and chain sizes (bounded cost)

    /// A throwaway leaf under the test intermediate with the key `openssl genpkey` makes from `keyOptions`,
    /// written with the test PKI into a temporary folder; returns that PKI.
    static func pki(withLeaf keyOptions: [String]) throws -> (TestPKI, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let keys = folder.url.appendingPathComponent("test-only-keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        let source = VerificationTestData.certsDirectory
        for name in ["test-intermediate", "test-root", "test-leaf"] {
            try FileManager.default.copyItem(
                at: source.appendingPathComponent("\(name).pem"), to: folder.url.appendingPathComponent("\(name).pem"))
            try FileManager.default.copyItem(
                at: source.appendingPathComponent("test-only-keys/\(name).key.pem"),
                to: keys.appendingPathComponent("\(name).key.pem"))
        }
        let dir = folder.url.path
        // Apple's receipt-signing marker, so that only the key is wrong.
        let extensions = """
            [leaf]
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid
            1.2.840.113635.100.6.11.1 = ASN1:NULL
            """
        _ = try folder.write("leaf.cnf", Array(extensions.utf8))
        #expect(try OpenSSLTool.run(["genpkey", "-out", "\(dir)/hostile.key"] + keyOptions) == 0)
        #expect(
            try OpenSSLTool.run([
                "req", "-new", "-key", "\(dir)/hostile.key", "-subj", "/CN=Hostile Leaf", "-out", "\(dir)/req.pem",
            ]) == 0)
        #expect(
            try OpenSSLTool.run([
                "x509", "-req", "-in", "\(dir)/req.pem", "-CA", "\(dir)/test-intermediate.pem", "-CAkey",
                "\(keys.path)/test-intermediate.key.pem", "-set_serial", "9001", "-days", "36500",
                "-extfile", "\(dir)/leaf.cnf", "-extensions", "leaf",
                "-out", "\(dir)/hostile-leaf.pem",
            ]) == 0)
        return (TestPKI(directory: folder.url), folder)
    }

    /// Receipt chains are RSA with small exponents: a non-RSA leaf (whose key could never have made an RSA
    /// signature), a huge public exponent or modulus (each RSA check ~100× dearer) is refused before any
    /// signature is computed.
    @Test(
        .enabled(if: OpenSSLTool.executable != nil, "needs the openssl command"),
        arguments: [
            ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
            // Explicit curve parameters and a compressed point: what OpenSSL can be made to spend most of a second
            // decoding when the attacker picks the field.
            [
                "-algorithm", "EC", "-pkeyopt", "group:P-256", "-pkeyopt", "encoding:explicit", "-pkeyopt",
                "point-format:compressed",
            ],
            ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-pkeyopt", "rsa_keygen_pubexp:131073"],
            ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"],
        ])
    func keysAppleNeverUsesAreRejectedUpFront(keyOptions: [String]) throws {
        let (pki, folder) = try Self.pki(withLeaf: keyOptions)
        defer { withExtendedLifetime(folder) {} }
        var request = try Self.request("valid-sha256")
        // The receipt is signed with the ordinary test key, in the hostile certificate's name.
        request.signing.signers = [SignerPlan(certificate: "hostile-leaf", key: "test-leaf")]
        request.signing.certificates = ["hostile-leaf", "test-intermediate", "test-root"]
        let verdict = try Self.verifier().verify(request.mint(pki: pki))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reasons.map(\.code) == [.chainKeyRejected], "\(verdict.reasons)")
        // Refused by this package's own reading of the key, before OpenSSL decoded any certificate (that reading
        // names certificates by position: OpenSSL's would name them by subject).
        #expect(verdict.reason?.message.hasPrefix("chain: embedded certificate 0 ") == true, "\(verdict.reasons)")
    }

    @Test func moreCertificatesThanAppleEmbedsAreRefusedBeforeParsing() throws {
        var request = try Self.request("valid-sha256")
        // Apple embeds three (leaf, intermediate, root); a fourth is refused by count, before any is parsed.
        request.signing.certificates += ["other-leaf"]
        let verdict = try Self.verifier().verify(request.mint(pki: Self.pki))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .chainTooLarge)
    }

    /// A megabyte of tiny certificates used to cost a decode each (about 55 times an ordinary receipt of the same
    /// size): the decoder stops counting at 16, before the verifier's own bound of 3 even comes into play.
    @Test func aReceiptWithFarMoreCertificatesThanAnyReceiptIsMalformed() throws {
        var request = try Self.request("valid-sha256")
        request.signing.certificates = Array(repeating: ["test-leaf", "test-intermediate", "test-root"], count: 6)
            .flatMap { $0 }
        let verdict = try Self.verifier().verify(request.mint(pki: Self.pki))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .receiptMalformed)
        #expect(verdict.reason?.message.contains("ber.too_many_elements") == true, "\(verdict.reasons)")
    }

    // MARK: - The chain cache

    /// A forgery that embeds the genuine chain fails its signature: it must not leave the chain in the cache.
    @Test func aForgeryNeverEntersTheChainCache() throws {
        let verifier = try Self.verifier()
        let forged = try VerificationTestData.fixture("tampered-payload").bytes
        #expect(verifier.verify(forged).reason?.code == .signatureMismatch)
        #expect(verifier.cacheStatistics.entries == 0)
        #expect(verifier.verify(try VerificationTestData.fixture("valid-sha256").bytes).isValid)
        #expect(verifier.cacheStatistics.entries == 1)
    }

    /// A chain that validates at the asked-for instant, under a receipt created before its leaf was valid: not
    /// Apple's receipt, so its chain does not enter the cache.
    @Test func aCreationDateOutsideTheLeafKeepsTheChainOutOfTheCache() throws {
        var request = try Self.request("valid-sha256")
        request.receipt?.creationDate = "2023-06-01T00:00:00Z"
        let minted = try request.mint(pki: Self.pki)
        let verifier = try Self.verifier()
        let inside = try #require(ReceiptDate(rfc3339: "2030-01-01T00:00:00Z"))
        let verdict = verifier.verify(minted, validationTime: .fixed(inside))
        #expect(verdict.reasons.map(\.code) == [.chainCreationDateOutsideLeafValidity], "\(verdict.reasons)")
        #expect(verifier.cacheStatistics.entries == 0)
    }

    /// A genuine receipt that the policy refuses (another app's) has a proven chain: it enters the cache, so the
    /// next one is refused from the cache, for the same reasons, instead of paying path validation again.
    @Test func aPolicyRefusalTeachesTheChainCacheItsProvenChain() throws {
        let verifier = try Self.verifier()
        let bytes = try VerificationTestData.fixture("valid-sha256").bytes
        let policy = ReceiptPolicy(acceptedBundleIDs: ["x"])
        let cold = verifier.verify(bytes, policy: policy)
        #expect(cold.reasons.map(\.code) == [.policyBundleIDRejected], "\(cold.reasons)")
        #expect(verifier.cacheStatistics.entries == 1)
        let warm = verifier.verify(bytes, policy: policy)
        #expect(verifier.cacheStatistics.hits == 1)
        #expect(warm.reasons.map(\.code) == cold.reasons.map(\.code))
        #expect(warm.chain == cold.chain)
        #expect(verifier.verify(bytes).isValid)
    }

    /// The test leaf's notAfter is 2034-12-31T23:59:59Z. OpenSSL treats a certificate as expired at its notAfter
    /// second; the cache must answer exactly the same, cold or warm, fractional seconds included.
    @Test(arguments: [
        ("2034-12-31T23:59:58.999Z", Verdict.Outcome.valid),
        ("2034-12-31T23:59:59Z", .invalid),
        ("2034-12-31T23:59:59.500Z", .invalid),
    ])
    func coldAndWarmCachesAgreeAtTheLeafsNotAfter(created: String, outcome: Verdict.Outcome) throws {
        var request = try Self.request("valid-sha256")
        request.receipt?.creationDate = created
        let boundary = try request.mint(pki: Self.pki)
        let cold = try Self.verifier().verify(boundary)

        let warmed = try Self.verifier()
        #expect(warmed.verify(try VerificationTestData.fixture("valid-sha256").bytes).isValid)
        let warm = warmed.verify(boundary)

        #expect(cold.outcome == outcome, "\(cold.reasons)")
        #expect(warm.outcome == cold.outcome, "cold \(cold.reasons), warm \(warm.reasons)")
        #expect(warm.reasons.map(\.code) == cold.reasons.map(\.code))
    }

    // MARK: - iOS 6

    /// The iOS 6 fixture minted again with `entries` replacing its purchase-info entries.
    static func iOS6Receipt(_ entries: [IOS6PlistEntry]) throws -> [UInt8] {
        var request = try Self.request("ios6-valid")
        let description = try #require(request.ios6)
        request.ios6?.purchaseInfo = description.purchaseInfo(replacing: entries)
        return try request.mint(pki: Self.pki)
    }

    /// A purchase date no instant can have (here Int64.min) used to trap in date arithmetic; it is malformed.
    @Test(arguments: ["-9223372036854775808", "9223372036854775807", "253402387200000"])
    func anIOS6DateOutsideTheCalendarIsMalformed(milliseconds: String) throws {
        let bytes = try Self.iOS6Receipt([IOS6PlistEntry("purchase-date-ms", milliseconds)])
        let verdict = try Self.verifier().verify(bytes)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .receiptMalformed)
        #expect(verdict.decodingError != nil && verdict.receipt == nil)
    }

    /// The certificate of an iOS 6 receipt must be valid at the purchase date: that much is decidable offline.
    @Test func anIOS6ReceiptOutsideItsCertificatesValidityIsInvalid() throws {
        // 2040-01-01: after the test certificate's notAfter (2034-12-31).
        let bytes = try Self.iOS6Receipt([IOS6PlistEntry("purchase-date-ms", "2208988800000")])
        let verdict = try Self.verifier().verify(bytes)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .chainExpired)
    }

    /// With the issuing intermediate trusted by the operator, an iOS 6 receipt's chain completes offline.
    @Test func anIOS6ReceiptIsValidWhenTheOperatorTrustsItsIssuer() throws {
        var anchors = try VerificationTestData.testPKIAnchors()
        try anchors.addRoots(
            fromPath: VerificationTestData.certsDirectory.appendingPathComponent("test-itunes-ca.pem").path)
        let verifier = ReceiptVerifier(configuration: .init(trustAnchors: anchors))
        let bytes = try VerificationTestData.fixture("ios6-valid").bytes
        let verdict = verifier.verify(bytes)
        #expect(verdict.outcome == .valid, "\(verdict.reasons)")
        #expect(try Self.verifier().verify(bytes).reason?.code == .ios6ChainIncomplete)
    }
}

@Suite("ReceiptDate's range")
struct ReceiptDateRangeTests {
    @Test(arguments: [Int64.min, Int64.max, -62_167_305_600_001, 253_402_387_200_000])
    func instantsOutsideTheCalendarAreNotDates(milliseconds: Int64) {
        #expect(ReceiptDate(millisecondsSince1970: milliseconds) == nil)
    }

    /// The ends of the range render without trapping, in every form the JSON uses.
    @Test(arguments: [
        ReceiptDate.representableMilliseconds.lowerBound, ReceiptDate.representableMilliseconds.upperBound,
    ])
    func theEndsOfTheRangeRender(milliseconds: Int64) throws {
        let date = try #require(ReceiptDate(millisecondsSince1970: milliseconds))
        #expect(!date.appleGMTString.isEmpty)
        #expect(!date.applePacificString.isEmpty)
        #expect(!date.description.isEmpty)
    }

    @Test func clockReadingsClampInsteadOfTrapping() {
        #expect(
            ReceiptDate(clockSecondsSince1970: .nan).millisecondsSince1970
                == ReceiptDate.representableMilliseconds.lowerBound)
        #expect(
            ReceiptDate(clockSecondsSince1970: .infinity).millisecondsSince1970
                == ReceiptDate.representableMilliseconds.upperBound)
        #expect(ReceiptDate(clockSecondsSince1970: 1.5).millisecondsSince1970 == 1_500)
    }
}

@Suite("App versions")
struct AppVersionTests {
    @Test(arguments: [
        ("1.10", "1.9"), ("2.0.1", "2.0b1"), ("3.3.1", "3.3.1b4"), ("3.3.1b4", "3.3.1a9"), ("1.0fc1", "1.0b7"),
        ("1.0", "1.0d1"), ("10", "9.99.99"), ("1.2.0.1", "1.2"),
    ])
    func ordersLikeBundleVersions(higher: String, lower: String) throws {
        let high = try #require(AppVersion(higher))
        let low = try #require(AppVersion(lower))
        #expect(low < high)
        #expect(!(high < low))
    }

    @Test func missingPartsCountAsZero() throws {
        #expect(try #require(AppVersion("1.2")) == #require(AppVersion("1.2.0")))
    }

    @Test(arguments: ["1.9z", "2.0-beta", "", "1..2", ".1", "a", "1.2b1x", "1234567890123456789"])
    func textThatIsNotAVersionDoesNotParse(text: String) {
        #expect(AppVersion(text) == nil)
    }

    /// "1.9z" used to pass a minimum of 1.10 (compared as text); "2.0b1" passed 2.0.1.
    @Test(arguments: ["1.9z", "2.0b1"])
    func aMinimumIsNeverPassedByGuessing(version: String) throws {
        var request = try SoundnessTests.request("valid-sha256")
        request.receipt?.applicationVersion = version
        let bytes = try request.mint(pki: SoundnessTests.pki)
        let minimum = version == "1.9z" ? "1.10" : "2.0.1"
        let verdict = try SoundnessTests.verifier().verify(bytes, policy: ReceiptPolicy(minimumAppVersion: minimum))
        #expect(verdict.reason?.code == .policyAppVersionRejected)
    }
}
