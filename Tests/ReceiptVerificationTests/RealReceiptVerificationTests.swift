import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

@Suite("Real Apple receipts", .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
struct RealReceiptVerificationTests {
    static let verifier = ReceiptVerifier()

    @Test(arguments: VerificationTestData.appleSignedReceipts)
    func appleSignedReceiptIsValidAtItsCreationDate(name: String) throws {
        let receipt = try AppReceipt(berEncoded: SharedTestData.receiptBytes(name))
        let verdict = Self.verifier.verify(receipt)
        #expect(verdict.outcome == .valid, "\(verdict.reasons)")
        #expect(verdict.verifiedReceipt != nil, "a valid verdict carries the receipt it vouches for")
        #expect(verdict.validationTime == .receiptCreation)
        #expect(verdict.validationInstant == receipt.payload.creationDate)
        #expect(verdict.chain.count == 3)
        #expect(verdict.chain.last == "CN=Apple Root CA,OU=Apple Certification Authority,O=Apple Inc.,C=US")
        let expectedEnvironment: ReceiptEnvironment =
            receipt.payload.receiptType == "Production" ? .production : .sandbox
        #expect(verdict.environment == expectedEnvironment)
    }

    @Test(arguments: VerificationTestData.appleSignedReceipts)
    func appleSignedReceiptHasExpiredNow(name: String) throws {
        let verdict = Self.verifier.verify(
            try SharedTestData.receiptBytes(name), validationTime: .now, now: VerificationTestData.now)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .chainExpired)
        #expect(verdict.verifiedReceipt == nil && verdict.receipt != nil)
        #expect(verdict.validationTime == .now && verdict.validationInstant == VerificationTestData.now)
        #expect(verdict.validationInstant == VerificationTestData.now)
    }

    @Test(arguments: VerificationTestData.xcodeReceipts)
    func xcodeReceiptIsUntrustedByDefault(name: String) throws {
        let verdict = Self.verifier.verify(try SharedTestData.receiptBytes(name))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .chainUntrustedRoot)
    }

    @Test(arguments: VerificationTestData.xcodeReceipts)
    func xcodeReceiptIsValidWhenXcodeIsAllowed(name: String) throws {
        let verifier = ReceiptVerifier(
            configuration: .init(trustAnchors: TrustAnchors(allowsXcodeStoreKitTesting: true)))
        let verdict = verifier.verify(try SharedTestData.receiptBytes(name))
        #expect(verdict.outcome == .valid, "\(verdict.reasons)")
        #expect(verdict.environment == .xcode)
        #expect(verdict.chain.count == 1)
    }

    @Test func xcodeReceiptIsRejectedWhenTheEnvironmentIsNotAccepted() throws {
        let verifier = ReceiptVerifier(
            configuration: .init(
                trustAnchors: TrustAnchors(allowsXcodeStoreKitTesting: true),
                policy: ReceiptPolicy(acceptedEnvironments: [.production, .sandbox])))
        let verdict = verifier.verify(try SharedTestData.receiptBytes("tpi-cyclemaps-xcode-2020"))
        #expect(verdict.reason?.code == .policyEnvironmentRejected)
    }

    static let deviceReceipt = "aprv-purchasingexp-sandbox-2023-02"

    @Test(arguments: ["e618109862dd433fbb94675d3815d263", "E6181098-62DD-433F-BB94-675D3815D263"])
    func deviceHashMatchesTheRightDevice(deviceID: String) throws {
        let device = try #require(DeviceIdentifier(deviceID))
        let verdict = Self.verifier.verify(
            try SharedTestData.receiptBytes(Self.deviceReceipt),
            policy: ReceiptPolicy(deviceIdentifier: device))
        #expect(verdict.outcome == .valid, "\(verdict.reasons)")
    }

    @Test(arguments: [
        "e618109862dd433fbb94675d3815d264", "00000000000000000000000000000000", "8F0A7C3E-1B2D-4E5F-9A8B-7C6D5E4F3A2B",
    ])
    func deviceHashFailsForAnyOtherDevice(deviceID: String) throws {
        let device = try #require(DeviceIdentifier(deviceID))
        let verdict = Self.verifier.verify(
            try SharedTestData.receiptBytes(Self.deviceReceipt),
            policy: ReceiptPolicy(deviceIdentifier: device))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .policyDeviceHashMismatch)
    }

    /// A Mac App Store receipt: its device hash covers the Mac's 6-byte MAC address
    /// (`../shared/receipts/README.md`: `6c4008b5945e`).
    static let macReceipt = "aprv-mindnodemac-prod-2017"

    @Test(arguments: ["6c:40:08:b5:94:5e", "6c4008b5945e", "6C-40-08-B5-94-5E"])
    func macDeviceHashMatchesTheMacsAddress(deviceID: String) throws {
        let device = try #require(DeviceIdentifier(deviceID))
        let verdict = Self.verifier.verify(
            try SharedTestData.receiptBytes(Self.macReceipt), policy: ReceiptPolicy(deviceIdentifier: device))
        #expect(verdict.outcome == .valid, "\(verdict.reasons)")
    }

    @Test(arguments: [
        "6c:40:08:b5:94:5f", "00:00:00:00:00:00", "5e:94:b5:08:40:6c",
        // The right six bytes followed by zeros (as a 16-byte identifier) are another device.
        "6c4008b5945e00000000000000000000",
    ])
    func macDeviceHashFailsForAnyOtherAddress(deviceID: String) throws {
        let device = try #require(DeviceIdentifier(deviceID))
        let verdict = Self.verifier.verify(
            try SharedTestData.receiptBytes(Self.macReceipt), policy: ReceiptPolicy(deviceIdentifier: device))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .policyDeviceHashMismatch)
    }

    @Test func bundleAndVersionPoliciesApplyToGenuineReceipts() throws {
        let bytes = try SharedTestData.receiptBytes(Self.deviceReceipt)
        let accepted = Self.verifier.verify(
            bytes,
            policy: ReceiptPolicy(acceptedBundleIDs: ["com.hannesoid.PurchasingExperiments"], minimumAppVersion: "1"))
        #expect(accepted.outcome == .valid)
        let wrongBundle = Self.verifier.verify(
            bytes, policy: ReceiptPolicy(acceptedBundleIDs: ["com.example.other"]))
        #expect(wrongBundle.reason?.code == .policyBundleIDRejected)
        let tooOld = Self.verifier.verify(bytes, policy: ReceiptPolicy(minimumAppVersion: "1.0.1"))
        #expect(tooOld.reason?.code == .policyAppVersionRejected)
        let sandboxOnlyProduction = Self.verifier.verify(
            bytes, policy: ReceiptPolicy(acceptedEnvironments: [.production]))
        #expect(sandboxOnlyProduction.reason?.code == .policyEnvironmentRejected)
    }

    @Test func tamperedRealPayloadIsASignatureMismatch() throws {
        var bytes = try SharedTestData.receiptBytes("rc-sampleapp-sandbox-2020")
        let receipt = try AppReceipt(berEncoded: bytes)
        // Flip a byte inside the opaque value (attribute 4): still decodes, no longer matches the signature.
        let opaque = try #require(receipt.payload.opaqueValue)
        bytes[opaque.startIndex] ^= 0xFF
        let verdict = Self.verifier.verify(bytes)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .signatureMismatch)
    }

    @Test func fixedValidationTimeIsReported() throws {
        let instant = try #require(ReceiptDate(rfc3339: "2023-03-01T00:00:00Z"))
        let verdict = Self.verifier.verify(
            try SharedTestData.receiptBytes(Self.deviceReceipt), validationTime: .fixed(instant))
        #expect(verdict.outcome == .valid)
        #expect(verdict.validationTime == .fixed(instant))
        #expect(verdict.validationInstant == instant)
    }

    @Test func realIOS6ReceiptIsInconclusive() throws {
        let bytes = try SharedTestData.bytes(
            at: SharedTestData.receiptsDirectory.appendingPathComponent("ios6/ios6-venice-sample.b64"))
        let verdict = Self.verifier.verify(bytes)
        #expect(verdict.outcome == .inconclusive)
        #expect(verdict.reason?.code == .ios6ChainIncomplete)
        // The plist's environment entry is unsigned, so the local verdict does not vouch for one.
        #expect(verdict.environment == nil)
        #expect(verdict.chain.first?.contains("PurchaseReceiptCertificate") == true)
    }

    @Test func tamperedRealIOS6ReceiptIsInvalid() throws {
        let bytes = try SharedTestData.bytes(
            at: SharedTestData.receiptsDirectory.appendingPathComponent("ios6/ios6-venice-sample.b64"))
        let receipt = try IOS6TransactionReceipt(base64Encoded: bytes[...])
        var entries = receipt.entries
        var info = receipt.purchaseInfoBytes
        info[info.count / 2] ^= 0x01
        entries["purchase-info"] = Data(info).base64EncodedString()
        let text = "{" + entries.map { "\"\($0.key)\" = \"\($0.value)\";" }.joined() + "}"
        let verdict = Self.verifier.verify(Array(text.utf8))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .ios6SignatureMismatch)
    }
}

/// The pins in the library are the fingerprints of Apple's published certificates, read from `../shared/certs`.
@Suite("Pinned anchors", .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
struct PinnedAnchorTests {
    static func fingerprint(_ file: String) throws -> [UInt8] {
        let bytes = try SharedTestData.bytes(at: SharedTestData.certsDirectory.appendingPathComponent(file))
        return try #require(try Certificate.certificates(fromFileContents: bytes).first).sha256Fingerprint
    }

    @Test func pinsAreTheFingerprintsOfApplesCertificates() throws {
        #expect(try Self.fingerprint("AppleIncRootCertificate.cer") == TrustAnchors.appleRootCAFingerprint)
        #expect(try Self.fingerprint("AppleRootCA-G3.cer") == TrustAnchors.appleRootCAG3Fingerprint)
        #expect(try Self.fingerprint("StoreKitTestCertificate.cer") == TrustAnchors.xcodeStoreKitTestingFingerprint)
    }

    @Test func defaultAnchorsPinBothAppleRootsAndNotXcode() throws {
        let anchors = TrustAnchors()
        #expect(
            anchors.pinnedFingerprints == [TrustAnchors.appleRootCAFingerprint, TrustAnchors.appleRootCAG3Fingerprint])
        #expect(!anchors.allowsXcodeStoreKitTesting)
        #expect(anchors.additionalRoots.isEmpty)
    }
}
