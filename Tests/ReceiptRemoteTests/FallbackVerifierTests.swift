import AppleStandIn
import Foundation
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import TestSupport
import Testing

/// The decision table end to end: local first, Apple (the stand-in, over loopback) only when the
/// local verdict cannot decide.
@Suite(.timeLimit(.minutes(1)))
struct FallbackVerifierTests {
    func fallback(_ addresses: StandInAddresses, clock: ManualClock = ManualClock(), maximumAttempts: Int = 2)
        throws -> FallbackVerifier
    {
        FallbackVerifier(
            verifier: try RemoteTestData.verifier(),
            remote: try RemoteTestData.client(
                RemoteTestData.configuration(addresses, maximumAttempts: maximumAttempts), clock: clock))
    }

    @Test(arguments: ["valid-sha256.receipt", "valid-sha1.receipt", "valid-base64.b64"])
    func locallyValidReceiptsNeverCallApple(_ name: String) async throws {
        let standIn = try RemoteTestData.standIn()
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(try RemoteTestData.fixture(name), request: .init(password: "secret"))
        }
        #expect(result.verdict.outcome == .valid)
        #expect(result.decidedBy == .local)
        #expect(VerifyReceiptStatus.status(of: result) == 0)
        #expect(result.trigger == nil)
        #expect(!result.askedApple)
        #expect(standIn.requests().isEmpty)
    }

    @Test(arguments: [
        ("tampered-payload.receipt", "signature.mismatch"), ("wrong-signing-key.receipt", "signature.mismatch"),
        ("lookalike-apple-chain.receipt", "chain.untrusted_root"), ("no-signer.receipt", "signature.no_signer"),
        ("ios6-tampered-purchase-info.b64", "ios6.signature_mismatch"),
    ])
    func locallyInvalidReceiptsAreNeverRescued(_ name: String, _ code: String) async throws {
        let standIn = try RemoteTestData.standIn()
        // Even an Apple that would say "valid" to anything is not asked.
        standIn.setDefault(.production, .body(#"{"status":0,"environment":"Production","receipt":{}}"#))
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(try RemoteTestData.fixture(name))
        }
        #expect(result.verdict.outcome == .invalid)
        #expect(result.decidedBy == .local)
        #expect(result.verdict.reason?.code.description == code)
        #expect(standIn.requests().isEmpty)
    }

    @Test func undecodableBytesAreInvalidLocally() async throws {
        let standIn = try RemoteTestData.standIn()
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(Array("not a receipt".utf8))
        }
        #expect(result.verdict.outcome == .invalid)
        #expect(VerifyReceiptStatus.status(of: result) == 21002)
        #expect(result.verdict.reason?.code == Reason.Code.receiptMalformed)
        #expect(standIn.requests().isEmpty)
    }

    @Test func anIOS6ReceiptGoesToAppleAndTakesItsVerdict() async throws {
        let receipt = try RemoteTestData.fixture("ios6-valid.b64")
        let standIn = try RemoteTestData.standIn()
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(receipt)
        }
        #expect(result.localVerdict.outcome == .inconclusive)
        #expect(result.trigger == .localInconclusive(.ios6ChainIncomplete))
        #expect(result.verdict.outcome == .valid)
        #expect(result.decidedBy == .remote)
        #expect(VerifyReceiptStatus.status(of: result) == 0)
        let response = try #require(result.appleResponse)
        #expect(response.shape == .ios6)
        #expect(response.bundleID == "org.example.receiptforge.ios6")
        // The sandbox receipt went to production first, then exactly once to sandbox.
        #expect(standIn.callCount(.production) == 1)
        #expect(standIn.callCount(.sandbox) == 1)
        // What was sent is exactly the bytes verified (the fixture is already standard base64 of them).
        #expect(standIn.requests(.sandbox).first?.receiptData == String(decoding: receipt, as: UTF8.self))
    }

    @Test func appleSaying21003MakesAnInconclusiveReceiptInvalid() async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .status(21003))
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(try RemoteTestData.fixture("ios6-valid.b64"))
        }
        #expect(result.verdict.outcome == .invalid)
        #expect(result.decidedBy == .remote)
        #expect(VerifyReceiptStatus.status(of: result) == 21003)
        #expect(result.verdict.reason?.code == .remoteRejected)
    }

    @Test(arguments: [
        StandInBehaviour.body("<html>gateway</html>"), .body(#"{"status":0}"#), .hugeBody(bytes: 5_000_000),
        .body(#"{"status":"0","receipt":{"bid":"org.example.receiptforge.ios6"}}"#), .httpStatus(502), .dropConnection,
        .body(#"{"status":0,"receipt":{"bid":"com.other.app"}}"#), .status(21004), .status(21000), .status(42),
    ])
    func hostileOrUnhelpfulAnswersNeverProduceValid(_ behaviour: StandInBehaviour) async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, behaviour)
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(try RemoteTestData.fixture("ios6-valid.b64"))
        }
        #expect(result.verdict.outcome == .inconclusive)
        #expect(result.decidedBy == .local)
        #expect(VerifyReceiptStatus.status(of: result) != 0)
        #expect(result.localVerdict.reason?.code == .ios6ChainIncomplete)
    }

    @Test func unreachableAppleLeavesItInconclusiveWith21005() async throws {
        let closed = try ClosedPort()
        let url = closed.url
        let fallback = FallbackVerifier(
            verifier: try RemoteTestData.verifier(),
            remote: try RemoteTestData.client(
                .init(
                    productionURL: url, sandboxURL: url, attemptTimeout: .milliseconds(300),
                    retry: RetryPolicy(maximumAttempts: 2))))
        let result = await fallback.verify(try RemoteTestData.fixture("ios6-valid.b64"))
        withExtendedLifetime(closed) {}  // the port stays refused until every attempt is over
        #expect(result.verdict.outcome == .inconclusive)
        #expect(result.decidedBy == .local)
        #expect(VerifyReceiptStatus.status(of: result) == 21005)
        #expect(result.verdict.reason?.code == Reason.Code(RemoteError.Code.unavailable))
        #expect(result.remoteError?.code == .unavailable)
        #expect(result.verdict.reasons.contains { $0.code == Reason.Code.ios6ChainIncomplete })
    }

    @Test func anOpenCircuitAnswersAtOnce() async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .httpStatus(503))
        let receipt = try RemoteTestData.fixture("ios6-valid.b64")
        try await standIn.withRunning { addresses in
            let fallback = FallbackVerifier(
                verifier: try RemoteTestData.verifier(),
                remote: try RemoteTestData.client(
                    RemoteTestData.configuration(addresses, maximumAttempts: 1, failureThreshold: 2)))
            _ = await fallback.verify(receipt)
            _ = await fallback.verify(receipt)
            let result = await fallback.verify(receipt)
            #expect(result.verdict.outcome == .inconclusive)
            #expect(result.verdict.reason?.code == Reason.Code(RemoteError.Code.circuitOpen))
            #expect(VerifyReceiptStatus.status(of: result) == 21005)
            #expect(standIn.callCount(.production) == 2)
        }
    }

    @Test func theDeadlineBoundsAnOutage() async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .status(21005))
        let clock = ManualClock()
        let result = try await standIn.withRunning { addresses in
            let fallback = FallbackVerifier(
                verifier: try RemoteTestData.verifier(),
                remote: try RemoteTestData.client(
                    RemoteTestData.configuration(addresses, deadline: .seconds(3), maximumAttempts: 50), clock: clock))
            return await fallback.verify(try RemoteTestData.fixture("ios6-valid.b64"))
        }
        #expect(result.verdict.outcome == .inconclusive)
        #expect(result.verdict.reason?.code == Reason.Code(RemoteError.Code.deadlineExceeded))
        #expect(clock.now() < .seconds(3))
    }

    @Test func remoteOffDecidesLocallyAndSaysWhyItWouldHaveAsked() async throws {
        let fallback = FallbackVerifier(verifier: try RemoteTestData.verifier())
        let result = await fallback.verify(try RemoteTestData.fixture("ios6-valid.b64"))
        #expect(result.verdict.outcome == .inconclusive)
        #expect(result.decidedBy == .local)
        #expect(VerifyReceiptStatus.status(of: result) == 21003)
        #expect(result.trigger == .localInconclusive(.ios6ChainIncomplete))
        #expect(!result.askedApple)
    }

    @Test func anExpiredSubscriptionIsRefreshedFromAppleWithTheSharedSecret() async throws {
        let receipt = try RemoteTestData.fixture("valid-sha256.receipt")
        let renewed = try #require(ReceiptDate(rfc3339: "2026-02-01T00:00:00Z"))
        let now = try #require(ReceiptDate(rfc3339: "2026-01-15T00:00:00Z"))
        let standIn = try RemoteTestData.standIn(sharedSecret: "secret", renewedUntil: renewed)
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(
                receipt, request: FallbackRequest(password: "secret", subscriptionStateAt: now))
        }
        #expect(result.localVerdict.outcome == .valid)
        #expect(
            result.trigger
                == .subscriptionExpiredInReceipt(
                    newestExpiry: try #require(ReceiptDate(rfc3339: "2025-06-20T17:39:08Z"))))
        #expect(result.verdict.outcome == .valid)
        #expect(result.decidedBy == .remote)
        #expect(result.appleResponse?.newestExpiry == renewed)
        #expect(result.appleResponse?.latestReceipt == Base64.encode(receipt))
        #expect(result.appleResponse?.pendingRenewalInfo.isEmpty == false)
    }

    @Test func noSharedSecretOrNoQuestionMeansNoSubscriptionRefresh() async throws {
        let receipt = try RemoteTestData.fixture("valid-sha256.receipt")
        let now = try #require(ReceiptDate(rfc3339: "2026-01-15T00:00:00Z"))
        let standIn = try RemoteTestData.standIn()
        try await standIn.withRunning { addresses in
            let fallback = try fallback(addresses)
            let withoutSecret = await fallback.verify(receipt, request: FallbackRequest(subscriptionStateAt: now))
            let withoutQuestion = await fallback.verify(receipt, request: FallbackRequest(password: "secret"))
            let stillCurrent = await fallback.verify(
                receipt,
                request: FallbackRequest(
                    password: "secret", subscriptionStateAt: try #require(ReceiptDate(rfc3339: "2025-06-18T00:00:00Z")))
            )
            for result in [withoutSecret, withoutQuestion, stillCurrent] {
                #expect(result.verdict.outcome == .valid)
                #expect(result.decidedBy == .local)
            }
        }
        #expect(standIn.requests().isEmpty)
    }

    @Test func aRefreshThatFailsKeepsTheLocalValidVerdict() async throws {
        let receipt = try RemoteTestData.fixture("valid-sha256.receipt")
        let now = try #require(ReceiptDate(rfc3339: "2026-01-15T00:00:00Z"))
        let standIn = try RemoteTestData.standIn(sharedSecret: "right")
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(
                receipt, request: FallbackRequest(password: "wrong", subscriptionStateAt: now))
        }
        #expect(result.verdict.outcome == .valid)
        #expect(result.decidedBy == .local)
        #expect(VerifyReceiptStatus.status(of: result) == 0)
        #expect(result.verdict.reason?.code == .remoteSharedSecretRejected)
        #expect(result.appleResponse?.status == 21004)
    }

    /// valid-sha256 with its digest OID turned into SHA-224's, which the verifier does not implement.
    static func unsupportedDigestReceipt() throws -> [UInt8] {
        var bytes = try RemoteTestData.fixture("valid-sha256.receipt")
        let sha256: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
        var index = 0
        while index + sha256.count <= bytes.count {
            if Array(bytes[index..<(index + sha256.count)]) == sha256 { bytes[index + sha256.count - 1] = 0x04 }
            index += 1
        }
        return bytes
    }

    /// A digest Apple never signs with proves the receipt is not Apple's: it is invalid locally and never sent
    /// to Apple, whatever Apple would have answered (this stand-in answers 0 to anything).
    @Test func anAlgorithmAppleNeverUsesIsNeverSentToApple() async throws {
        let standIn = try RemoteTestData.standIn()
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(try Self.unsupportedDigestReceipt())
        }
        #expect(result.localVerdict.reason?.code == .signatureAlgorithmRejected)
        #expect(result.trigger == nil)
        #expect(result.verdict.outcome == .invalid)
        #expect(result.decidedBy == .local)
        #expect(standIn.callCount(.sandbox) + standIn.callCount(.production) == 0)
    }

    /// An incomplete chain is undecided, but the policy is decidable on the bytes at hand: a receipt the policy
    /// refuses is invalid locally and never reaches Apple.
    @Test func aPolicyRefusalOfAnIncompleteChainIsFinal() async throws {
        let standIn = try RemoteTestData.standIn()
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(
                try RemoteTestData.fixture("intermediate-missing.receipt"),
                request: FallbackRequest(policy: ReceiptPolicy(acceptedBundleIDs: ["com.example.other"])))
        }
        #expect(result.verdict.outcome == .invalid)
        #expect(result.decidedBy == .local)
        #expect(result.verdict.reason?.code == Reason.Code.policyBundleIDRejected)
        #expect(standIn.requests().isEmpty)
    }

    @Test func aLocalPolicyRejectionIsFinal() async throws {
        let standIn = try RemoteTestData.standIn()
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(
                try RemoteTestData.fixture("ios6-valid.b64"),
                request: FallbackRequest(policy: ReceiptPolicy(minimumAppVersion: "99")))
        }
        #expect(result.verdict.outcome == .invalid)
        #expect(result.verdict.reason?.code == Reason.Code.policyAppVersionRejected)
        #expect(standIn.requests().isEmpty)
    }

    /// An iOS 6 receipt's "environment" entry is unsigned: the environment policy is applied to the
    /// endpoint that answered (here sandbox, after production's 21007), never to the receipt's claim.
    @Test func theEnvironmentPolicyFollowsTheEndpointThatAnswered() async throws {
        let standIn = try RemoteTestData.standIn()
        let result = try await standIn.withRunning { addresses in
            try await fallback(addresses).verify(
                try RemoteTestData.fixture("ios6-valid.b64"),
                request: FallbackRequest(policy: ReceiptPolicy(acceptedEnvironments: [.production])))
        }
        #expect(result.verdict.outcome == .invalid)
        #expect(result.decidedBy == .remote)
        #expect(result.verdict.environment == .sandbox)
        #expect(result.verdict.reason?.code == Reason.Code.policyEnvironmentRejected)
        #expect(standIn.requests().map(\.endpoint) == [.production, .sandbox])
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func realReceiptsAreDecidedLocally() async throws {
        let standIn = try RemoteTestData.standIn()
        let names = SharedTestData.receiptNames.filter { !$0.contains("xcode") }
        try await standIn.withRunning { addresses in
            let fallback = FallbackVerifier(
                verifier: ReceiptVerifier(),
                remote: try RemoteTestData.client(RemoteTestData.configuration(addresses)))
            for name in names {
                let result = await fallback.verify(try SharedTestData.receiptBytes(name))
                #expect(result.verdict.outcome == .valid, "\(name)")
                #expect(result.decidedBy == .local, "\(name)")
            }
        }
        #expect(standIn.requests().isEmpty)
    }

    @Test(arguments: ["valid-sha256.receipt", "valid-base64.b64", "tampered-payload.receipt", "ios6-valid.b64"])
    func everyFormOfInputGivesTheSameAnswer(_ name: String) async throws {
        let fallback = FallbackVerifier(verifier: try RemoteTestData.verifier())
        let bytes = try RemoteTestData.fixture(name)
        let text = bytes.allSatisfy { $0 < 0x80 } ? String(decoding: bytes, as: UTF8.self) : Base64.encode(bytes)
        let answers = [
            await fallback.verify(bytes), await fallback.verify(bytes[...]), await fallback.verify(Data(bytes)),
            await fallback.verify(text),
        ]
        for answer in answers.dropFirst() {
            #expect(answer.verdict.outcome == answers[0].verdict.outcome, "\(name)")
            #expect(answer.verdict.reasons.map(\.code) == answers[0].verdict.reasons.map(\.code), "\(name)")
            #expect(answer.decidedBy == .local)
        }
    }
}
