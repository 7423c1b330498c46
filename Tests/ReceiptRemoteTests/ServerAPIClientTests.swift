import AppleStandIn
import Foundation
import Logging
import ReceiptForge
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

@testable import ReceiptRemote

/// The App Store Server API client against the stand-in over loopback: paging, tokens, rate limits and
/// `Retry-After`, retries, the environment hop, and every signed item verified.
@Suite(.timeLimit(.minutes(2))) struct ServerAPIClientTests {
    typealias Client = ServerAPITestClient
    static let start = ReceiptDate(clampingMillisecondsSince1970: 1_717_200_000_000)

    static func customer(_ count: Int, _ environment: ReceiptEnvironment, first: Int64 = 1000)
        -> [ServerAPITransaction]
    {
        ServerAPIData.customer(
            originalTransactionID: first, count: count, productID: "com.example.monthly", bundleID: Client.bundleID,
            environment: environment, start: start)
    }

    static func standIn(sandbox: Int = 0, production: Int = 0, pageSize: Int = 20) throws -> AppleStandIn {
        var configuration = AppleStandIn.Configuration(serverAPIAuthorization: try Client.authorization())
        configuration.serverAPIPageSize = pageSize
        let standIn = AppleStandIn(configuration: configuration)
        if sandbox > 0 {
            try standIn.serveServerAPI(
                ServerAPIData(bundleID: Client.bundleID, transactions: customer(sandbox, .sandbox)), in: .sandbox,
                minter: Client.minter)
        }
        if production > 0 {
            try standIn.serveServerAPI(
                ServerAPIData(
                    bundleID: Client.bundleID, appAppleID: 1_234_567_890,
                    transactions: customer(production, .production, first: 5000)),
                in: .production, minter: Client.minter)
        }
        return standIn
    }

    /// The client under test, on the system clock (the stand-in measures wall time), with quick retries.
    static func client(
        _ addresses: StandInAddresses, rate: Int = 50, deadline: Duration = .seconds(60),
        clock: any RemoteClock = SystemRemoteClock()
    ) throws -> AppStoreServerAPIClient {
        var policy = ReceiptPolicy()
        policy.acceptedBundleIDs = [Client.bundleID]
        var anchors = TrustAnchors()
        try anchors.addRoots(fromPath: Client.certs.appendingPathComponent("test-jws-root.pem").path)
        let verifier = ReceiptVerifier(configuration: .init(trustAnchors: anchors, policy: policy))
        return try AppStoreServerAPIClient(
            key: try AppStoreAPIKey(pem: Client.keyPEM, keyID: Client.keyID, issuerID: Client.issuer),
            verifier: verifier,
            configuration: .init(
                productionURL: addresses.productionAPIBaseURL, sandboxURL: addresses.sandboxAPIBaseURL,
                requestsPerSecond: rate, attemptTimeout: .seconds(60), deadline: deadline,
                retry: RetryPolicy(
                    maximumAttempts: 4, initialBackoff: .milliseconds(20), maximumBackoff: .milliseconds(80)),
                circuitBreaker: .init(failureThreshold: 50)),
            clock: clock, random: { 0.5 }, logger: Logger(label: "server-api-test"))
    }

    /// The error `body` throws, `nil` when it succeeds.
    static func failure(_ body: () async throws(RemoteError) -> Void) async -> RemoteError? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    static func ids(_ items: SignedItems) -> [String] {
        items.items.compactMap { item in
            if case .transaction(let transaction)? = item.verdict.verifiedPayload { return transaction.transactionID }
            return nil
        }
    }

    @Test func aThreePageHistoryIsWalkedToTheEndWithTheSameFiltersAndEveryItemVerified() async throws {
        let standIn = try Self.standIn(sandbox: 45)
        let filter = TransactionHistoryFilter(
            order: .ascending, startDate: ReceiptDate(clampingMillisecondsSince1970: 0),
            productIDs: ["com.example.monthly"])
        let history = try await standIn.withRunning { addresses in
            try await Self.client(addresses).transactionHistory(
                "1006", bundleID: Client.bundleID, environment: .sandbox, filter: filter)
        }
        #expect(history.environment == .sandbox)
        #expect(history.pages == 3)
        #expect(history.items.count == 45)
        #expect(history.failed.isEmpty, "\(history.failed.map(\.verdict.reasons))")
        #expect(Self.ids(history) == (0..<45).map { String(1000 + $0) })
        #expect(history.items.map(\.index) == Array(0..<45))
        let requests = standIn.apiRequests(.sandbox)
        #expect(requests.count == 3)
        for request in requests {
            #expect(request.queryValues("productId") == ["com.example.monthly"])
            #expect(request.queryValues("sort") == ["ASCENDING"])
            #expect(request.queryValues("startDate") == ["0"])
        }
        #expect(requests.map { $0.queryValues("revision").count } == [0, 1, 1])
    }

    @Test func everyTokenTheStandInReceivesVerifiesAndCarriesApplesClaims() async throws {
        let standIn = try Self.standIn(sandbox: 25, production: 3)
        try await standIn.withRunning { addresses in
            let client = try Self.client(addresses)
            _ = try await client.transactionHistory("1000", bundleID: Client.bundleID, environment: .sandbox)
            _ = try await client.transactionInfo("5001", bundleID: Client.bundleID)
            _ = try await client.subscriptionStatuses("5000", bundleID: Client.bundleID, environment: .production)
        }
        let requests = standIn.apiRequests()
        #expect(requests.count == 4)
        for request in requests {
            #expect(request.authorization.isVerified == true, "\(request.authorization.failure ?? "")")
            let header = try #require(request.authorization.header)
            let claims = try #require(request.authorization.claims)
            #expect(header.text("alg") == "ES256")
            #expect(header.text("kid") == Client.keyID)
            #expect(header.text("typ") == "JWT")
            #expect(claims.text("iss") == Client.issuer)
            #expect(claims.text("aud") == "appstoreconnect-v1")
            #expect(claims.text("bid") == Client.bundleID)
            let iat = try #require(claims["iat"]?.integerValue)
            let exp = try #require(claims["exp"]?.integerValue)
            #expect(exp > iat && exp - iat <= 3600)
        }
        // One token per app, reused.
        #expect(Set(requests.compactMap { $0.authorization.claims?.text("iat") }).count == 1)
    }

    @Test func aRetryAfterIsHonouredToTheMillisecondInBothEnvironmentsOfTheApp() async throws {
        let standIn = try Self.standIn(sandbox: 3, production: 3)
        let (sandbox, production, until) = try await standIn.withRunning { addresses in
            let client = try Self.client(addresses)
            // Scripted once listening, so the instant is ahead of the first request however slow the start was.
            let until = Int64(Date().timeIntervalSince1970 * 1000) + 500
            standIn.scriptAPI(.sandbox, [.rateLimitedUntil(unixMilliseconds: until)])
            let sandbox = try await client.transactionInfo("1001", bundleID: Client.bundleID, environment: .sandbox)
            // Asked after the 429: Production waits for the same instant.
            let production = try await client.transactionInfo(
                "5001", bundleID: Client.bundleID, environment: .production)
            return (sandbox, production, until)
        }
        #expect(sandbox.items.first?.isValid == true)
        #expect(production.items.first?.isValid == true)
        let requests = standIn.apiRequests()
        #expect(requests.count == 3)
        #expect(requests.first?.behaviour == .rateLimitedUntil(unixMilliseconds: until))
        for request in requests.dropFirst() {
            #expect(request.arrivalMilliseconds >= until, "sent \(until - request.arrivalMilliseconds) ms early")
        }
        #expect(standIn.rateLimitViolations().isEmpty)
    }

    @Test func aRetryAfterPastTheDeadlineFailsFastAndStillHoldsTheApp() async throws {
        let standIn = try Self.standIn(sandbox: 3)
        // An hour's Retry-After (the most the client honours) against a minute's deadline: past it by far, and the
        // deadline is long enough that a slow first round trip cannot run it out instead.
        standIn.scriptAPI(.sandbox, [.rateLimited(retryAfterMilliseconds: 3_600_000)])
        let error = try await standIn.withRunning { addresses -> RemoteError? in
            let client = try Self.client(addresses, deadline: .seconds(60))
            return await Self.failure { () async throws(RemoteError) in
                _ = try await client.transactionInfo("1001", bundleID: Client.bundleID, environment: .sandbox)
            }
        }
        #expect(error?.code == .rateLimited)
        #expect(standIn.apiRequests().count == 1)
        #expect(standIn.rateLimitViolations().isEmpty)
    }

    @Test func theRateIsNeverExceededInAnyOneSecondWindow() async throws {
        let standIn = try Self.standIn(sandbox: 3, production: 3)
        let rate = 20
        try await standIn.withRunning { addresses in
            let client = try Self.client(addresses, rate: rate)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<60 {
                    group.addTask {
                        _ = try await client.transactionInfo(
                            "\(5000 + index % 3)", bundleID: Client.bundleID, environment: .production)
                    }
                }
                try await group.waitForAll()
            }
        }
        let arrivals = standIn.apiRequests(.production).map(\.arrivalMilliseconds).sorted()
        #expect(arrivals.count == 60)
        for (index, arrival) in arrivals.enumerated() {
            let inWindow = arrivals[index...].prefix { $0 < arrival + 1000 }.count
            #expect(inWindow <= rate, "\(inWindow) requests in the second from \(arrival)")
        }
    }

    @Test func retryableErrorsAreRetriedAndOthersAreNot() async throws {
        let standIn = try Self.standIn(sandbox: 3)
        standIn.scriptAPI(
            .sandbox,
            [
                .apiError(httpStatus: 500, errorCode: 5_000_001), .apiError(httpStatus: 404, errorCode: 4_040_002),
                .apiError(httpStatus: 503, errorCode: 0), .apple,
                .apiError(httpStatus: 400, errorCode: 4_000_006),
            ])
        let (answer, refusal) = try await standIn.withRunning { addresses in
            let client = try Self.client(addresses)
            let answer = try await client.transactionInfo("1001", bundleID: Client.bundleID, environment: .sandbox)
            let refusal = await Self.failure { () async throws(RemoteError) in
                _ = try await client.transactionInfo("1002", bundleID: Client.bundleID, environment: .sandbox)
            }
            return (answer, refusal)
        }
        #expect(answer.items.first?.isValid == true)
        #expect(refusal?.code == .apiError)
        #expect(refusal?.lastStatus == 4_000_006)
        #expect(standIn.apiRequests().count == 5)
    }

    @Test func withoutASignedEnvironmentProductionIsAskedFirstThenSandbox() async throws {
        let standIn = try Self.standIn(sandbox: 3, production: 3)
        let (found, unreleased) = try await standIn.withRunning { addresses in
            let client = try Self.client(addresses)
            // 1001 is a Sandbox id: Production answers 4040010.
            let found = try await client.transactionInfo("1001", bundleID: Client.bundleID)
            standIn.setAPIDefault(.production, .unauthorized)
            let unreleased = try await client.transactionInfo("1002", bundleID: Client.bundleID)
            return (found, unreleased)
        }
        #expect(found.environment == .sandbox)
        #expect(unreleased.environment == .sandbox)
        let production = standIn.apiRequests(.production)
        // One 4040010, then two 401s: the token renewed once before Production was given up on.
        #expect(production.count == 3)
        let tokens = production.dropFirst().compactMap { $0.authorization.claims?.text("iat") }
        #expect(tokens.count == 2)
        #expect(standIn.apiRequests(.sandbox).count == 2)
    }

    @Test func aStatedEnvironmentIsTheOnlyOneAsked() async throws {
        let standIn = try Self.standIn(sandbox: 3, production: 3)
        let error = try await standIn.withRunning { addresses -> RemoteError? in
            let client = try Self.client(addresses)
            return await Self.failure { () async throws(RemoteError) in
                _ = try await client.transactionInfo("1001", bundleID: Client.bundleID, environment: .production)
            }
        }
        #expect(error?.code == .notFound)
        #expect(standIn.apiRequests(.sandbox).isEmpty)
    }

    @Test func aForgedItemIsReportedWithItsReasonAndTheOthersStand() async throws {
        let standIn = try Self.standIn(sandbox: 25)
        standIn.scriptAPI(.sandbox, [.apple, .forgedItem(index: 1)])
        let history = try await standIn.withRunning { addresses in
            try await Self.client(addresses).transactionHistory(
                "1000", bundleID: Client.bundleID, environment: .sandbox)
        }
        #expect(history.items.count == 25)
        #expect(history.failed.map(\.index) == [21])
        #expect(history.failed.first?.verdict.reasons.first?.code == .jwsSignatureMismatch)
        #expect(history.valid.count == 24)
    }

    @Test func aSignedItemOfAnotherAppThanTheAnswerIsInvalid() async throws {
        let standIn = try Self.standIn(sandbox: 0)
        // The answer names the test app; its items are signed for another app the operator also accepts.
        let other = ServerAPIData.customer(
            originalTransactionID: 7000, count: 2, productID: "p", bundleID: "com.example.other", environment: .sandbox,
            start: Self.start)
        try standIn.serveServerAPI(
            ServerAPIData(bundleID: Client.bundleID, transactions: other), in: .sandbox, minter: Client.minter)
        let history = try await standIn.withRunning { addresses in
            try await Self.client(addresses).transactionHistory(
                "7000", bundleID: Client.bundleID, environment: .sandbox)
        }
        #expect(history.items.count == 2)
        #expect(history.valid.isEmpty)
        #expect(
            history.items.allSatisfy { item in
                item.verdict.reasons.contains {
                    $0.code == .remoteEnvelopeMismatch || $0.code == .policyBundleIDRejected
                }
            })
    }

    @Test func subscriptionStatusesAndTheOtherEndpoints() async throws {
        let standIn = try Self.standIn(sandbox: 4)
        try await standIn.withRunning { addresses in
            let client = try Self.client(addresses)
            let statuses = try await client.subscriptionStatuses(
                "1002", bundleID: Client.bundleID, environment: .sandbox)
            #expect(statuses.subscriptions.count == 1)
            #expect(statuses.subscriptions.first?.isValid == true)
            #expect(statuses.subscriptions.first?.renewal?.isValid == true)
            let order = try await client.lookUpOrder("ORDER-1001", bundleID: Client.bundleID, environment: .sandbox)
            #expect(order.status == 0)
            #expect(Self.ids(order.transactions) == ["1001"])
            let unknown = try await client.lookUpOrder("ORDER-9", bundleID: Client.bundleID, environment: .sandbox)
            #expect(unknown.status == 1 && unknown.transactions.items.isEmpty)
            let token = try await client.requestTestNotification(bundleID: Client.bundleID, environment: .sandbox)
            #expect(!token.isEmpty)
            let accepted = try await client.sendConsumptionInformation(
                "1001", body: Array(#"{"customerConsented":true,"refundPreference":1}"#.utf8),
                bundleID: Client.bundleID, environment: .sandbox)
            #expect(accepted == .sandbox)
            await #expect(throws: RemoteError.self) {
                try await client.sendConsumptionInformation(
                    "1001", body: Array("[]".utf8), bundleID: Client.bundleID, environment: .sandbox)
            }
            _ = try await client.refundHistory("1000", bundleID: Client.bundleID, environment: .sandbox)
        }
        let consumption = standIn.apiRequests(.sandbox).filter { $0.method == "PUT" }
        #expect(consumption.count == 1)
        #expect(consumption.first?.body == Array(#"{"customerConsented":true,"refundPreference":1}"#.utf8))
    }

    @Test func malformedAnswersAndDroppedConnectionsAreRetriedThenReported() async throws {
        let standIn = try Self.standIn(sandbox: 3)
        standIn.setAPIDefault(.sandbox, .malformed)
        let error = try await standIn.withRunning { addresses -> RemoteError? in
            let client = try Self.client(addresses)
            return await Self.failure { () async throws(RemoteError) in
                _ = try await client.transactionInfo("1001", bundleID: Client.bundleID, environment: .sandbox)
            }
        }
        #expect(error?.code == .malformedResponse)
        #expect(error?.attempts == 4)
    }
}
