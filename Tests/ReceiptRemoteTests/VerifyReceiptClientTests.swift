import AppleStandIn
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import Testing

/// The verifyReceipt client over real loopback sockets against the stand-in: environments, retries,
/// deadlines, hostile answers. Time is a ``ManualClock``; only the per-attempt timeout test waits for real.
@Suite(.timeLimit(.minutes(1)))
struct VerifyReceiptClientTests {
    let sandboxReceipt: [UInt8]
    let productionReceipt: [UInt8]

    init() throws {
        sandboxReceipt = try RemoteTestData.fixture("valid-sha256.receipt")
        productionReceipt = try RemoteTestData.fixture("valid-sha1.receipt")
    }

    @Test func sandboxReceiptSentToProductionMakesExactlyOneSandboxCall() async throws {
        let standIn = try RemoteTestData.standIn()
        let response = try await standIn.withRunning { addresses in
            let client = try RemoteTestData.client(RemoteTestData.configuration(addresses))
            return try await client.verify(VerifyReceiptRequest(receiptBytes: sandboxReceipt))
        }
        #expect(response.status == 0)
        #expect(response.environment == "Sandbox")
        #expect(response.bundleID == "org.example.receiptforge.sample")
        #expect(standIn.callCount(.production) == 1)
        #expect(standIn.callCount(.sandbox) == 1)
        // The hop carries the same receipt.
        #expect(standIn.requests(.sandbox).first?.receiptData == Base64.encode(sandboxReceipt))
    }

    @Test func productionReceiptStartedOnSandboxGoesToProductionOn21008() async throws {
        let standIn = try RemoteTestData.standIn()
        let response = try await standIn.withRunning { addresses in
            let client = try RemoteTestData.client(RemoteTestData.configuration(addresses))
            return try await client.verify(
                VerifyReceiptRequest(receiptBytes: productionReceipt, startEnvironment: .sandbox))
        }
        #expect(response.status == 0)
        #expect(response.environment == "Production")
        #expect(standIn.callCount(.sandbox) == 1)
        #expect(standIn.callCount(.production) == 1)
    }

    @Test func productionReceiptNeedsNoHop() async throws {
        let standIn = try RemoteTestData.standIn()
        let response = try await standIn.withRunning { addresses in
            try await RemoteTestData.client(RemoteTestData.configuration(addresses)).verify(
                VerifyReceiptRequest(receiptBytes: productionReceipt))
        }
        #expect(response.status == 0)
        #expect(standIn.callCount(.production) == 1)
        #expect(standIn.callCount(.sandbox) == 0)
    }

    @Test func sendsPasswordAndExcludeOldTransactions() async throws {
        let standIn = try RemoteTestData.standIn()
        _ = try await standIn.withRunning { addresses in
            try await RemoteTestData.client(RemoteTestData.configuration(addresses)).verify(
                VerifyReceiptRequest(receiptBytes: productionReceipt, password: "s3cr3t", excludeOldTransactions: true))
        }
        let request = try #require(standIn.requests(.production).first)
        #expect(request.password == "s3cr3t")
        #expect(request.excludeOldTransactions == true)
    }

    @Test(arguments: [
        StandInBehaviour.status(21005), .status(21002), .status(21009), .status(21150, isRetryable: true),
        .httpStatus(500), .httpStatus(503), .dropConnection, .body("not json"),
    ])
    func retriesATryAgainAnswerThenSucceeds(_ first: StandInBehaviour) async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.script(.production, [first])
        let clock = ManualClock()
        let response = try await standIn.withRunning { addresses in
            try await RemoteTestData.client(RemoteTestData.configuration(addresses), clock: clock).verify(
                VerifyReceiptRequest(receiptBytes: productionReceipt))
        }
        #expect(response.status == 0)
        #expect(standIn.callCount(.production) == 2)
        // One backoff of the first retry: half of 1 s plus half of that times the jitter 0.5.
        #expect(clock.sleeps == [.milliseconds(750)])
    }

    @Test(arguments: [21003, 21004, 21010, 21000])
    func finalStatusesAreReturnedWithoutRetry(_ status: Int) async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .status(status))
        let response = try await standIn.withRunning { addresses in
            try await RemoteTestData.client(RemoteTestData.configuration(addresses)).verify(
                VerifyReceiptRequest(receiptBytes: productionReceipt))
        }
        #expect(response.status == status)
        #expect(standIn.callCount(.production) == 1)
    }

    @Test func a21100WithoutIsRetryableIsFinal() async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .status(21100, isRetryable: false))
        let response = try await standIn.withRunning { addresses in
            try await RemoteTestData.client(RemoteTestData.configuration(addresses)).verify(
                VerifyReceiptRequest(receiptBytes: productionReceipt))
        }
        #expect(response.status == 21100)
        #expect(response.isRetryable == false)
        #expect(standIn.callCount(.production) == 1)
    }

    @Test func givesUpAfterTheAttemptsRunOut() async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .status(21005))
        let clock = ManualClock()
        let error = await #expect(throws: RemoteError.self) {
            try await standIn.withRunning { addresses in
                try await RemoteTestData.client(
                    RemoteTestData.configuration(addresses, maximumAttempts: 3), clock: clock
                )
                .verify(VerifyReceiptRequest(receiptBytes: productionReceipt))
            }
        }
        #expect(error?.code == .retriesExhausted)
        #expect(error?.lastStatus == 21005)
        #expect(error?.attempts == 3)
        #expect(standIn.callCount(.production) == 3)
        #expect(clock.sleeps == [.milliseconds(750), .milliseconds(1500)])
    }

    @Test func retryableStatusesStopCleanlyAtTheDeadline() async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .status(21199, isRetryable: true))
        let clock = ManualClock()
        let error = await #expect(throws: RemoteError.self) {
            try await standIn.withRunning { addresses in
                // Backoffs 0.75, 1.5, 3, 6 s: the fourth would end past the 10 s deadline.
                try await RemoteTestData.client(
                    RemoteTestData.configuration(addresses, deadline: .seconds(10), maximumAttempts: 100), clock: clock
                ).verify(VerifyReceiptRequest(receiptBytes: productionReceipt))
            }
        }
        #expect(error?.code == .deadlineExceeded)
        #expect(error?.lastStatus == 21199)
        #expect(standIn.callCount(.production) == 4)
        #expect(clock.now() < .seconds(10))
    }

    @Test(arguments: [
        StandInBehaviour.body("not json at all"), .body("[1,2,3]"), .body(#"{"status":"0"}"#),
        .body(#"{"status":0.5}"#),
        .body(#"{"receipt":{}}"#), .body(#"{"status":0,"receipt":[]}"#),
        .body(#"{"status":0,"latest_receipt_info":"x"}"#),
        .body(#"{"status":0,"receipt":{"in_app":{}}}"#), .body(#"{"status":0} trailing"#),
        .body(String(repeating: "[", count: 10_000)), .body(#"{"status":0,"environment":7}"#),
    ])
    func malformedAnswersAreTypedErrors(_ behaviour: StandInBehaviour) async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, behaviour)
        let error = await #expect(throws: RemoteError.self) {
            try await standIn.withRunning { addresses in
                try await RemoteTestData.client(RemoteTestData.configuration(addresses, maximumAttempts: 2)).verify(
                    VerifyReceiptRequest(receiptBytes: productionReceipt))
            }
        }
        #expect(error?.code == .malformedResponse)
        #expect(standIn.callCount(.production) == 2)
    }

    @Test func hugeAnswersAreRefusedAtTheCap() async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .hugeBody(bytes: 5 * 1024 * 1024))
        let error = await #expect(throws: RemoteError.self) {
            try await standIn.withRunning { addresses in
                try await RemoteTestData.client(RemoteTestData.configuration(addresses, maximumAttempts: 1)).verify(
                    VerifyReceiptRequest(receiptBytes: productionReceipt))
            }
        }
        #expect(error?.code == .responseTooLarge)
    }

    @Test func slowAnswersTimeOutPerAttempt() async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .delayed(.seconds(5), then: .apple))
        let error = await #expect(throws: RemoteError.self) {
            try await standIn.withRunning { addresses in
                try await RemoteTestData.client(
                    RemoteTestData.configuration(addresses, attemptTimeout: .milliseconds(200), maximumAttempts: 2)
                ).verify(VerifyReceiptRequest(receiptBytes: productionReceipt))
            }
        }
        #expect(error?.code == .timeout)
        #expect(standIn.callCount(.production) == 2)
    }

    @Test func httpClientErrorsAreNotRetried() async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.production, .httpStatus(404))
        let error = await #expect(throws: RemoteError.self) {
            try await standIn.withRunning { addresses in
                try await RemoteTestData.client(RemoteTestData.configuration(addresses)).verify(
                    VerifyReceiptRequest(receiptBytes: productionReceipt))
            }
        }
        #expect(error?.code == .httpStatus)
        #expect(standIn.callCount(.production) == 1)
    }

    @Test func refusedConnectionsAreUnavailable() async throws {
        let closed = try ClosedPort()
        let url = closed.url
        let client = try RemoteTestData.client(
            VerifyReceiptClient.Configuration(
                productionURL: url, sandboxURL: url, attemptTimeout: .milliseconds(300),
                retry: RetryPolicy(maximumAttempts: 2)))
        let error = await #expect(throws: RemoteError.self) {
            try await client.verify(VerifyReceiptRequest(receiptBytes: productionReceipt))
        }
        withExtendedLifetime(closed) {}  // the port stays refused until every attempt is over
        #expect(error?.code == .unavailable)
        #expect(error?.attempts == 2)
    }

    @Test func environmentPingPongStopsAfterOneHop() async throws {
        let standIn = try RemoteTestData.standIn()
        standIn.setDefault(.sandbox, .status(21008))
        let error = await #expect(throws: RemoteError.self) {
            try await standIn.withRunning { addresses in
                try await RemoteTestData.client(RemoteTestData.configuration(addresses)).verify(
                    VerifyReceiptRequest(receiptBytes: sandboxReceipt))
            }
        }
        #expect(error?.code == .environmentLoop)
        #expect(standIn.callCount(.production) == 1)
        #expect(standIn.callCount(.sandbox) == 1)
    }

    @Test func rejectsNonHTTPBaseURLs() {
        #expect(throws: RemoteError.self) {
            try VerifyReceiptClient(configuration: .init(productionURL: "ftp://example/verifyReceipt"))
        }
    }
}
