import ReceiptModel
import ReceiptVerification
import Testing

@Suite("Policy values")
struct PolicyTests {
    @Test(arguments: [
        ("e618109862dd433fbb94675d3815d263", "e618109862dd433fbb94675d3815d263"),
        ("E6181098-62DD-433F-BB94-675D3815D263", "e618109862dd433fbb94675d3815d263"),
    ])
    func deviceIdentifiersParse(text: String, hex: String) throws {
        #expect(try #require(DeviceIdentifier(text)).description == hex)
    }

    @Test(arguments: [
        "", "e61810", "e618109862dd433fbb94675d3815d26g", "E6181098-62DD-433F-BB94675D3815D263X",
        "E6181098_62DD_433F_BB94_675D3815D263",
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

    @Test func policyFailuresDoNotHideCryptographicOnes() throws {
        let verifier = try VerificationTestData.fixtureVerifier()
        let verdict = verifier.verify(
            try VerificationTestData.fixture("tampered-payload").bytes,
            policy: ReceiptPolicy(acceptedBundleIDs: ["nope"]))
        #expect(verdict.reasons.map(\.code) == [.signatureMismatch])
    }
}
