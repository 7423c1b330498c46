import AppleStandIn
import AsyncHTTPClient
import Foundation
import NIOHTTP1
import ReceiptForge
import ReceiptModel
import ReceiptVerification
import Synchronization
import Testing

/// The stand-in's App Store Server API, called over loopback with AsyncHTTPClient and hand-made tokens: paging,
/// filters, authentication, rate limits, forged items, and every other route.
@Suite struct StandInServerAPITests {
    typealias Client = ServerAPITestClient
    /// 2024-06-01: every transaction of a 45-month customer is signed while the test JWS leaf is valid.
    static let start = ReceiptDate(clampingMillisecondsSince1970: 1_717_200_000_000)
    static let month: Int64 = 30 * 24 * 3600 * 1000

    static func customer(_ count: Int, environment: ReceiptEnvironment = .sandbox) -> [ServerAPITransaction] {
        ServerAPIData.customer(
            originalTransactionID: 1000, count: count, productID: "com.example.monthly", bundleID: Client.bundleID,
            environment: environment, start: start)
    }

    /// A stand-in checking tokens, serving `data` in sandbox (and production when given).
    static func standIn(
        sandbox data: ServerAPIData, production: ServerAPIData? = nil, clock: (@Sendable () -> Int64)? = nil
    ) throws -> AppleStandIn {
        var configuration = AppleStandIn.Configuration(serverAPIAuthorization: try Client.authorization())
        if let clock { configuration.serverAPIClock = clock }
        let standIn = AppleStandIn(configuration: configuration)
        try standIn.serveServerAPI(data, in: .sandbox, minter: Client.minter)
        if let production { try standIn.serveServerAPI(production, in: .production, minter: Client.minter) }
        return standIn
    }

    /// The transaction id of a verified signed transaction; `nil` unless the verdict is valid.
    static func transactionID(_ verdict: JWSVerdict) -> String? {
        if case .transaction(let transaction)? = verdict.verifiedPayload { return transaction.transactionID }
        return nil
    }

    static func strings(_ value: Any?) -> [String] { (value as? [Any])?.compactMap { $0 as? String } ?? [] }

    @Test func historyOfFortyFiveTransactionsComesInThreeVerifiablePages() async throws {
        let standIn = try Self.standIn(
            sandbox: ServerAPIData(bundleID: Client.bundleID, transactions: Self.customer(45)))
        let verifier = try Client.verifier()
        let filters = "productId=com.example.monthly&startDate=0&endDate=4102444800000"
        let (pages, ids) = try await standIn.withRunning { addresses in
            let client = Client(baseURL: addresses.sandboxAPIBaseURL)
            var pages: [(count: Int, hasMore: Bool)] = []
            var ids: [String] = []
            var revision: String?
            repeat {
                let query = filters + (revision.map { "&revision=\($0)" } ?? "")
                // Any id of the customer finds its history: ask by the 7th one.
                let answer = try await client.call(.GET, "/inApps/v2/history/1006?\(query)")
                #expect(answer.status == 200)
                let json = try answer.json()
                #expect(json["environment"] as? String == "Sandbox")
                #expect(json["bundleId"] as? String == Client.bundleID)
                #expect(json["appAppleId"] == nil, "Sandbox answers carry no appAppleId")
                let signed = Self.strings(json["signedTransactions"])
                for jws in signed {
                    let verdict = verifier.verifyJWS(jws)
                    #expect(verdict.isValid, "\(verdict.reasons)")
                    ids.append(Self.transactionID(verdict) ?? "?")
                }
                let hasMore = try #require(json["hasMore"] as? Bool)
                pages.append((signed.count, hasMore))
                revision = try #require(json["revision"] as? String)
                if !hasMore { break }
            } while pages.count < 10
            return (pages, ids)
        }
        #expect(pages.map(\.count) == [20, 20, 5])
        #expect(pages.map(\.hasMore) == [true, true, false])
        #expect(ids == (0..<45).map { String(1000 + $0) })
        let recorded = standIn.apiRequests(.sandbox)
        #expect(recorded.count == 3)
        #expect(recorded.allSatisfy { $0.authorization.isVerified == true && $0.method == "GET" })
        #expect(recorded.allSatisfy { $0.queryValues("productId") == ["com.example.monthly"] })
        #expect(recorded.map { $0.queryValues("revision").count } == [0, 1, 1])
        #expect(recorded.first?.authorization.claims?.text("bid") == Client.bundleID)
        #expect(standIn.apiRequests(.production).isEmpty)
    }

    @Test func historyFiltersByPurchaseDateAndProductAndSorts() async throws {
        let standIn = try Self.standIn(
            sandbox: ServerAPIData(bundleID: Client.bundleID, transactions: Self.customer(10)))
        let from = Self.start.millisecondsSince1970 + 2 * Self.month
        let to = Self.start.millisecondsSince1970 + 5 * Self.month
        let verifier = try Client.verifier()
        try await standIn.withRunning { addresses in
            let client = Client(baseURL: addresses.sandboxAPIBaseURL)
            let window = try await client.call(
                .GET, "/inApps/v2/history/1000?startDate=\(from)&endDate=\(to)&sort=DESCENDING")
            let ids = Self.strings(try window.json()["signedTransactions"]).map {
                Self.transactionID(verifier.verifyJWS($0)) ?? "?"
            }
            #expect(ids == ["1004", "1003", "1002"])
            let other = try await client.call(.GET, "/inApps/v2/history/1000?productId=com.example.other")
            #expect(Self.strings(try other.json()["signedTransactions"]).isEmpty)
            let unknown = try await client.call(.GET, "/inApps/v2/history/999")
            #expect(unknown.status == 404)
            #expect(try unknown.json()["errorCode"] as? Int == 4_040_010)
        }
    }

    static let badTokens: [(String, @Sendable () throws -> String)] = [
        ("signed by another key", { try Client.token(keyPEM: try otherKey()) }),
        ("another kid", { try Client.token(kid: "OTHER") }),
        ("another issuer", { try Client.token(iss: "someone-else") }),
        ("wrong audience", { try Client.token(aud: "appstoreconnect-v2") }),
        ("another app", { try Client.token(bid: "com.example.other") }),
        ("lives longer than an hour", { try Client.token(lifetime: 3601) }),
        ("expired", { try Client.token(lifetime: 60, issuedAgo: 120) }),
        ("no token at all", { "" }),
        ("not a JWS", { "abc" }),
    ]

    static func otherKey() throws -> String {
        try String(
            contentsOf: Client.certs.appendingPathComponent("test-only-keys/test-jws-leaf.key.pem"), encoding: .utf8)
    }

    @Test(arguments: badTokens.indices)
    func aBadTokenGets401WithAnEmptyBodyAndIsRecordedUnverified(index: Int) async throws {
        let (name, make) = Self.badTokens[index]
        let standIn = try Self.standIn(
            sandbox: ServerAPIData(bundleID: Client.bundleID, transactions: Self.customer(1)))
        let token = try make()
        let (bad, good) = try await standIn.withRunning { addresses in
            let client = Client(baseURL: addresses.sandboxAPIBaseURL)
            return (
                try await client.call(.GET, "/inApps/v1/transactions/1000", token: token),
                try await client.call(.GET, "/inApps/v1/transactions/1000")
            )
        }
        #expect(bad.status == 401, "\(name)")
        #expect(bad.body.isEmpty, "\(name)")
        #expect(good.status == 200, "\(name)")
        let recorded = standIn.apiRequests()
        #expect(recorded.map(\.authorization.isVerified) == [false, true], "\(name)")
        #expect(recorded.first?.authorization.failure != nil, "\(name)")
        #expect(recorded.first?.behaviour == .unauthorized)
    }

    @Test func rateLimitingAnswersRetryAfterAndCatchesAnEarlyRequest() async throws {
        // The API clock moves only when the test moves it, so "early" and "later" hold on however slow a host.
        let startMilliseconds = Int64(Date().timeIntervalSince1970 * 1000)
        let clock = Mutex<Int64>(startMilliseconds)
        let standIn = try Self.standIn(
            sandbox: ServerAPIData(bundleID: Client.bundleID, transactions: Self.customer(2)),
            clock: { clock.withLock { $0 } })
        standIn.scriptAPI(.sandbox, [.rateLimited(retryAfterMilliseconds: 2000)])
        let (limited, early, later) = try await standIn.withRunning { addresses in
            let client = Client(baseURL: addresses.sandboxAPIBaseURL)
            let limited = try await client.call(.GET, "/inApps/v1/transactions/1000")
            clock.withLock { $0 += 1999 }
            let early = try await client.call(.GET, "/inApps/v1/transactions/1000")
            clock.withLock { $0 = Int64(limited.retryAfter ?? "") ?? $0 + 2000 }
            let later = try await client.call(.GET, "/inApps/v1/transactions/1000")
            return (limited, early, later)
        }
        let recorded = standIn.apiRequests()
        #expect(limited.status == 429)
        #expect(try limited.json()["errorCode"] as? Int == 4_290_000)
        let retryAfter = try #require(Int64(limited.retryAfter ?? ""))
        #expect(recorded[0].arrivalMilliseconds == startMilliseconds)
        #expect(retryAfter == startMilliseconds + 2000)
        #expect(early.status == 429)
        #expect(early.retryAfter == limited.retryAfter)
        #expect(later.status == 200)
        #expect(recorded[2].arrivalMilliseconds >= retryAfter)
        let violations = standIn.rateLimitViolations()
        #expect(violations.count == 1)
        #expect(violations.first?.arrivalMilliseconds == recorded[1].arrivalMilliseconds)
        #expect(violations.first?.limitedUntilMilliseconds == retryAfter)
        #expect(violations.first?.bundleID == Client.bundleID)
    }

    @Test func aForgedItemFailsVerificationAndTheOthersPass() async throws {
        let standIn = try Self.standIn(
            sandbox: ServerAPIData(bundleID: Client.bundleID, transactions: Self.customer(4)))
        standIn.scriptAPI(.sandbox, [.forgedItem(index: 2)])
        let verifier = try Client.verifier()
        let signed = try await standIn.withRunning { addresses in
            Self.strings(
                try await Client(baseURL: addresses.sandboxAPIBaseURL).call(.GET, "/inApps/v2/history/1000").json()[
                    "signedTransactions"])
        }
        #expect(signed.count == 4)
        let verdicts = signed.map { verifier.verifyJWS($0) }
        #expect(verdicts.map(\.isValid) == [true, true, false, true])
        #expect(verdicts[2].reason?.code == .jwsSignatureMismatch, "\(verdicts[2].reasons)")
    }

    @Test func notificationHistoryPagesOldestFirstWithinTheTimeWindow() async throws {
        let transactions = Self.customer(45)
        let notifications = ServerAPIData.notifications(
            about: transactions, bundleID: Client.bundleID, environment: .sandbox)
        let standIn = try Self.standIn(
            sandbox: ServerAPIData(bundleID: Client.bundleID, transactions: transactions, notifications: notifications))
        // Notifications 5 ..< 30: startDate inclusive, endDate exclusive.
        let body = try JSONSerialization.data(withJSONObject: [
            "startDate": Self.start.millisecondsSince1970 + 5 * Self.month,
            "endDate": Self.start.millisecondsSince1970 + 30 * Self.month,
        ])
        let verifier = try Client.verifier()
        let (pages, uuids) = try await standIn.withRunning { addresses in
            let client = Client(baseURL: addresses.sandboxAPIBaseURL)
            var pages: [(count: Int, hasMore: Bool, token: String?)] = []
            var uuids: [String] = []
            var token: String?
            repeat {
                let query = token.map { "?paginationToken=\($0)" } ?? ""
                let answer = try await client.call(.POST, "/inApps/v1/notifications/history\(query)", body: Array(body))
                #expect(answer.status == 200)
                let json = try answer.json()
                let history = (json["notificationHistory"] as? [[String: Any]]) ?? []
                for item in history {
                    let verdict = verifier.verifyJWS(item["signedPayload"] as? String ?? "")
                    #expect(verdict.isValid, "\(verdict.reasons)")
                    uuids.append(verdict.jws?.payload.text("notificationUUID") ?? "?")
                    let attempts = item["sendAttempts"] as? [[String: Any]]
                    #expect(attempts?.first?["sendAttemptResult"] as? String == "SUCCESS")
                }
                token = json["paginationToken"] as? String
                pages.append((history.count, json["hasMore"] as? Bool ?? false, token))
            } while token != nil && pages.count < 10
            return (pages, uuids)
        }
        #expect(pages.map(\.count) == [20, 5])
        #expect(pages.map(\.hasMore) == [true, false])
        #expect(pages.last?.token == nil, "no paginationToken on the last page")
        #expect(uuids == notifications[5..<30].map { $0.notificationUUID ?? "" })
        let recorded = standIn.apiRequests(.sandbox)
        #expect(recorded.count == 2)
        #expect(recorded.allSatisfy { $0.body == Array(body) }, "every page carried the same body")
    }

    @Test func subscriptionStatusesGiveTheLatestTransactionAndItsRenewalInfo() async throws {
        let transactions = Self.customer(3)
        let secondMonth = Self.start.millisecondsSince1970 + 2 * Self.month + 1000
        let standIn = try Self.standIn(
            sandbox: ServerAPIData(bundleID: Client.bundleID, transactions: transactions), clock: { secondMonth })
        let verifier = try Client.verifier()
        let (allAnswer, expiredAnswer) = try await standIn.withRunning { addresses in
            let client = Client(baseURL: addresses.sandboxAPIBaseURL)
            return (
                try await client.call(.GET, "/inApps/v1/subscriptions/1001", token: try Self.tokenValidNow()),
                try await client.call(.GET, "/inApps/v1/subscriptions/1001?status=2", token: try Self.tokenValidNow())
            )
        }
        let all = try allAnswer.json()
        let expired = try expiredAnswer.json()
        let groups = try #require(all["data"] as? [[String: Any]])
        #expect(groups.count == 1)
        #expect(groups.first?["subscriptionGroupIdentifier"] as? String == "21000001")
        let last = try #require((groups.first?["lastTransactions"] as? [[String: Any]])?.first)
        #expect(last["originalTransactionId"] as? String == "1000")
        #expect(last["status"] as? Int == 1)
        let transaction = verifier.verifyJWS(last["signedTransactionInfo"] as? String ?? "")
        #expect(Self.transactionID(transaction) == "1002")
        let renewal = verifier.verifyJWS(last["signedRenewalInfo"] as? String ?? "")
        #expect(renewal.isValid, "\(renewal.reasons)")
        guard case .renewalInfo(let renewalInfo)? = renewal.verifiedPayload else {
            Issue.record("not a verified renewal info: \(renewal.reasons)")
            return
        }
        #expect(renewalInfo.autoRenewStatus == .known(.on))
        #expect((expired["data"] as? [Any])?.isEmpty == true)
    }

    /// The clock of the subscription test is in 2024; tokens are still checked against it, so make one valid then.
    static func tokenValidNow() throws -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let secondMonth = start.millisecondsSince1970 + 2 * month + 1000
        return try Client.token(lifetime: 300, issuedAgo: (now - secondMonth) / 1000)
    }

    @Test func refundOrderTransactionAndConsumptionRoutesAnswerAndRecord() async throws {
        var transactions = Self.customer(5)
        transactions[1].transaction.revocationDate = Self.start.millisecondsSince1970 + Self.month + 5
        transactions[1].transaction.revocationReason = 0
        transactions[3].transaction.revocationDate = Self.start.millisecondsSince1970 + 3 * Self.month + 5
        transactions[3].transaction.revocationReason = 1
        let standIn = try Self.standIn(
            sandbox: ServerAPIData(bundleID: Client.bundleID, transactions: transactions),
            production: ServerAPIData(
                bundleID: Client.bundleID, appAppleID: 42, transactions: Self.customer(1, environment: .production)))
        let verifier = try Client.verifier()
        let consumption = Array(#"{"customerConsented":true,"deliveryStatus":0,"refundPreference":2}"#.utf8)
        try await standIn.withRunning { addresses in
            let client = Client(baseURL: addresses.sandboxAPIBaseURL)
            let refunds = try await client.call(.GET, "/inApps/v2/refund/lookup/1004").json()
            #expect(
                Self.strings(refunds["signedTransactions"]).map {
                    Self.transactionID(verifier.verifyJWS($0)) ?? "?"
                } == ["1001", "1003"])
            #expect(refunds["hasMore"] as? Bool == false)
            #expect(refunds["revision"] is String)

            let order = try await client.call(.GET, "/inApps/v1/lookup/ORDER-1002").json()
            #expect(order["status"] as? Int == 0)
            #expect(
                Self.strings(order["signedTransactions"]).map {
                    Self.transactionID(verifier.verifyJWS($0)) ?? "?"
                } == ["1002"])
            let noOrder = try await client.call(.GET, "/inApps/v1/lookup/ORDER-9").json()
            #expect(noOrder["status"] as? Int == 1)
            #expect(Self.strings(noOrder["signedTransactions"]).isEmpty)

            let info = try await client.call(.GET, "/inApps/v1/transactions/1003").json()
            #expect(Self.transactionID(verifier.verifyJWS(info["signedTransactionInfo"] as? String ?? "")) == "1003")
            let production = try await Client(baseURL: addresses.productionAPIBaseURL).call(
                .GET, "/inApps/v2/history/1000"
            ).json()
            #expect(production["environment"] as? String == "Production")
            #expect(production["appAppleId"] as? Int == 42)

            let accepted = try await client.call(.PUT, "/inApps/v2/transactions/consumption/1002", body: consumption)
            #expect(accepted.status == 202)
            #expect(accepted.body.isEmpty)
            let refused = try await client.call(
                .PUT, "/inApps/v2/transactions/consumption/1002", body: Array("[1]".utf8))
            #expect(refused.status == 400)
            #expect(try refused.json()["errorCode"] as? Int == 4_000_023)
        }
        let puts = standIn.apiRequests(.sandbox).filter { $0.method == "PUT" }
        #expect(
            puts.map(\.path) == [
                "/inApps/v2/transactions/consumption/1002", "/inApps/v2/transactions/consumption/1002",
            ])
        #expect(puts.first?.body == consumption)
    }

    @Test func scriptedErrorsDefaultsAndTestNotifications() async throws {
        let standIn = try Self.standIn(
            sandbox: ServerAPIData(bundleID: Client.bundleID, transactions: Self.customer(1)),
            production: ServerAPIData(
                bundleID: Client.bundleID, transactions: Self.customer(1, environment: .production)))
        standIn.setAPIDefault(.production, .apiError(httpStatus: 404, errorCode: 4_040_010))
        standIn.scriptAPI(.sandbox, [.apiError(httpStatus: 500, errorCode: 5_000_001), .unauthorized, .malformed])
        try await standIn.withRunning { addresses in
            let production = Client(baseURL: addresses.productionAPIBaseURL)
            let sandbox = Client(baseURL: addresses.sandboxAPIBaseURL)
            let notReleased = try await production.call(.GET, "/inApps/v1/transactions/1000")
            #expect(notReleased.status == 404)
            #expect(try notReleased.json()["errorMessage"] as? String == "Transaction id not found.")
            let failed = try await sandbox.call(.GET, "/inApps/v1/transactions/1000")
            #expect(failed.status == 500)
            #expect(try failed.json()["errorCode"] as? Int == 5_000_001)
            let refused = try await sandbox.call(.GET, "/inApps/v1/transactions/1000")
            #expect(refused.status == 401)
            #expect(refused.body.isEmpty)
            let malformed = try await sandbox.call(.GET, "/inApps/v1/transactions/1000")
            #expect(malformed.status == 200)
            #expect((try? malformed.json()) == nil)
            let requested = try await sandbox.call(.POST, "/inApps/v1/notifications/test").json()
            let token = try #require(requested["testNotificationToken"] as? String)
            let status = try await sandbox.call(.GET, "/inApps/v1/notifications/test/\(token)").json()
            let verdict = try Client.verifier().verifyJWS(status["signedPayload"] as? String ?? "")
            #expect(verdict.isValid, "\(verdict.reasons)")
            #expect(verdict.jws?.payload.text("notificationType") == "TEST")
        }
        #expect(standIn.apiRequests(.production).map(\.behaviour) == [.apiError(httpStatus: 404, errorCode: 4_040_010)])
    }

    @Test(arguments: [
        ("429:1500", ServerAPIBehaviour.rateLimited(retryAfterMilliseconds: 1500)),
        ("error:404:4040002", .apiError(httpStatus: 404, errorCode: 4_040_002)),
        ("401", .unauthorized), ("forged:3", .forgedItem(index: 3)), ("malformed", .malformed),
        ("drop", .dropConnection), ("slow:250", .delayed(.milliseconds(250), then: .apple)), ("apple", .apple),
    ])
    func scriptTokensParse(token: String, behaviour: ServerAPIBehaviour) {
        #expect(ServerAPIBehaviour(token: token) == behaviour)
    }

    @Test(arguments: ["429", "429:-1", "error:200:1", "error:500", "forged:x", "slow", "status:0", ""])
    func badScriptTokensAreRefused(token: String) {
        #expect(ServerAPIBehaviour(token: token) == nil)
    }
}
