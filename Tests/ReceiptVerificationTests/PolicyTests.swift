import Foundation
import ReceiptForge
import ReceiptModel
import ReceiptVerification
import Testing

@Suite("Policy values")
struct PolicyTests {
    @Test(arguments: [
        // iOS: identifierForVendor, 16 bytes.
        ("e618109862dd433fbb94675d3815d263", "e618109862dd433fbb94675d3815d263"),
        ("E6181098-62DD-433F-BB94-675D3815D263", "e618109862dd433fbb94675d3815d263"),
        // macOS: the primary interface's MAC address, 6 bytes.
        ("6c4008b5945e", "6c4008b5945e"),
        ("6C4008B5945E", "6c4008b5945e"),
        ("6c:40:08:b5:94:5e", "6c4008b5945e"),
        ("6C:40:08:B5:94:5E", "6c4008b5945e"),
        ("6c-40-08-b5-94-5e", "6c4008b5945e"),
        ("6C-40-08-b5-94-5E", "6c4008b5945e"),
    ])
    func deviceIdentifiersParse(text: String, hex: String) throws {
        #expect(try #require(DeviceIdentifier(text)).description == hex)
    }

    @Test func macAddressIsSixBytesAndUUIDSixteen() throws {
        #expect(try #require(DeviceIdentifier("6c:40:08:b5:94:5e")).bytes == [0x6C, 0x40, 0x08, 0xB5, 0x94, 0x5E])
        #expect(try #require(DeviceIdentifier("E6181098-62DD-433F-BB94-675D3815D263")).bytes.count == 16)
    }

    @Test(arguments: [
        "", "e61810", "e618109862dd433fbb94675d3815d26g", "E6181098-62DD-433F-BB94675D3815D263X",
        "E6181098_62DD_433F_BB94_675D3815D263",
        // 11, 13 and 31 hex digits.
        "6c4008b5945", "6c4008b5945e0", "e618109862dd433fbb94675d3815d26",
        // Non-hex digits in either MAC form.
        "6c4008b5945g", "6c:40:08:b5:94:5g", "zz-40-08-b5-94-5e",
        // Separators other than colon and hyphen, mixed ones, and ones in the wrong places.
        "6c.40.08.b5.94.5e", "6c 40 08 b5 94 5e", "6c_40_08_b5_94_5e", "6c:40:08-b5:94:5e",
        "6c-40-08-b5-94:5e", "6c4:008:b59:45e:", ":6c:40:08:b5:94:5", "6c:40:08:b5:945e:",
        // Groups of one digit, a trailing separator, a UUID with colons, a MAC inside a UUID's shape.
        "6c:40:8:b5:94:5e", "6c:40:08:b5:94:5e:", "E6181098:62DD:433F:BB94:675D3815D263",
        "6c4008b5-945e-0000-0000-000000000000x",
    ])
    func malformedDeviceIdentifiersAreRejected(text: String) {
        #expect(DeviceIdentifier(text) == nil)
    }

    @Test(arguments: [
        ("Production", ReceiptEnvironment.production), ("ProductionSandbox", .sandbox), ("Xcode", .xcode),
        ("ProductionVPP", .production), ("ProductionVPPSandbox", .sandbox),
    ])
    func receiptTypesMapToEnvironments(type: String, environment: ReceiptEnvironment) {
        #expect(ReceiptEnvironment(receiptType: type) == environment)
    }

    @Test func unknownReceiptTypeHasNoEnvironment() {
        #expect(ReceiptEnvironment(receiptType: "Staging") == nil)
    }

    @Test func appVersionPolicyOnAFixture() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let bytes = try VerificationTestData.fixture("valid-sha256").bytes  // application version 1.4.2
        #expect(verifier.verify(bytes, policy: ReceiptPolicy(minimumAppVersion: "1.4")).isValid)
        #expect(verifier.verify(bytes, policy: ReceiptPolicy(minimumAppVersion: "1.4.2")).isValid)
        #expect(verifier.verify(bytes, policy: ReceiptPolicy(expectedAppVersion: "1.4.2.0")).isValid)
        #expect(
            verifier.verify(bytes, policy: ReceiptPolicy(minimumAppVersion: "1.10")).reason?.code
                == .policyAppVersionRejected)
        #expect(
            verifier.verify(bytes, policy: ReceiptPolicy(expectedAppVersion: "1.4.3")).reason?.code
                == .policyAppVersionRejected)
    }

    /// The valid-sha256 fixture's recipe, bound by the forge to the Mac with MAC address 6c:40:08:b5:94:5e.
    static func macBoundReceipt() throws -> [UInt8] {
        let descriptions = VerificationTestData.fixturesDirectory.appendingPathComponent("descriptions")
        var request = try MintRequest(json: Data(contentsOf: descriptions.appendingPathComponent("valid-sha256.json")))
        var receipt = try #require(request.receipt)
        try receipt.bind(toDevice: [0x6C, 0x40, 0x08, 0xB5, 0x94, 0x5E])
        request.receipt = receipt
        return try request.mint(pki: TestPKI(directory: VerificationTestData.certsDirectory))
    }

    @Test func mintedMacReceiptIsValidForItsMACAddressOnly() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let bytes = try Self.macBoundReceipt()
        #expect(verifier.verify(bytes).isValid, "no device asked: the policy does not look at the hash")
        for form in ["6c:40:08:b5:94:5e", "6C-40-08-B5-94-5E", "6c4008b5945e"] {
            let device = try #require(DeviceIdentifier(form))
            let verdict = verifier.verify(bytes, policy: ReceiptPolicy(deviceIdentifier: device))
            #expect(verdict.isValid, "\(form): \(verdict.reasons)")
        }
        for other in ["6c:40:08:b5:94:5f", "00:00:00:00:00:00", "6c4008b5945e00000000000000000000"] {
            let device = try #require(DeviceIdentifier(other))
            let verdict = verifier.verify(bytes, policy: ReceiptPolicy(deviceIdentifier: device))
            #expect(verdict.outcome == .invalid, "\(other)")
            #expect(verdict.reason?.code == .policyDeviceHashMismatch, "\(other)")
        }
    }

    @Test func policyFailuresDoNotHideCryptographicOnes() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let verdict = verifier.verify(
            try VerificationTestData.fixture("tampered-payload").bytes,
            policy: ReceiptPolicy(acceptedBundleIDs: ["nope"]))
        #expect(verdict.reasons.map(\.code) == [.signatureMismatch])
    }
}
