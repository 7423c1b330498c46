import AppleStandIn
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptForge
import ReceiptIntake
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

/// Renewals without verifyReceipt (issue 26): `/verifyReceipt` with the shared secret for a receipt whose
/// subscription lapsed asks Get All Subscription Statuses, records what Apple signed and answers from the ledger;
/// verifyReceipt is never called, and a failing statuses call leaves the local answer.
@Suite("server API renewals", .timeLimit(.minutes(2)))
struct ServerAPIRenewalTests {
    typealias API = ServerAPITestSupport
    typealias Support = ServerTestSupport
    static let secret = "renewal-shared-secret"
    static let original = "2000000900000001"
    /// The receipt's purchase: 2025-05-20, expiring 2025-06-20.
    static let purchased = "2025-05-20T17:39:08Z"
    static let purchasedAt = ReceiptDate(clampingMillisecondsSince1970: 1_747_762_748_000)
    /// 2025-09-01: the receipt's subscription lapsed; Apple's fourth transaction (to 2025-09-17) is current.
    static let now = ReceiptDate(clampingMillisecondsSince1970: 1_756_684_800_000)

    static func receipt() throws -> [UInt8] {
        try API.receipt([
            API.subscription(original, original: original, purchased: purchased, expires: "2025-06-20T17:39:08Z")
        ])
    }

    /// The customer Apple knows: the receipt's purchase and three renewals after it.
    static func standIn() throws -> AppleStandIn {
        try API.standIn(
            sandbox: ServerAPIData(
                bundleID: API.bundle,
                transactions: ServerAPIData.customer(
                    originalTransactionID: Int64(original) ?? 0, count: 4, productID: API.product,
                    bundleID: API.bundle, environment: .sandbox, start: purchasedAt)))
    }

    /// `/sandbox/verifyReceipt` with the password, `times` times, on a server with the client and a ledger;
    /// `remoteFallback` also points verifyReceipt at the stand-in.
    static func verify(
        _ addresses: StandInAddresses, remoteFallback: Bool, times: Int = 1, folder: TemporaryFolder
    ) async throws -> [TestResponse] {
        let verifier = try API.verifier()
        let decider =
            remoteFallback
            ? try FallbackVerifier.apple(
                verifier: verifier, productionURL: addresses.productionURL, sandboxURL: addresses.sandboxURL,
                deadline: .seconds(60), logger: Support.quietLogger)
            : FallbackVerifier(verifier: verifier)
        let service = ReceiptService(
            configuration: ReceiptServerConfiguration(
                host: "127.0.0.1", port: 0, sharedSecret: secret, maximumInFlight: 16, clock: { now }),
            decider: decider, ledger: try API.sqliteLedger(folder),
            serverAPI: try API.client(addresses, verifier: verifier, deadline: .seconds(60)), backfillsAtStart: false,
            logger: Support.quietLogger)
        let body = Support.appleRequest(try receipt(), password: secret)
        return try await service.makeApplication().test(.router) { client in
            var responses: [TestResponse] = []
            for _ in 0..<times {
                responses.append(try await client.execute(uri: "/sandbox/verifyReceipt", method: .post, body: body))
            }
            return responses
        }
    }

    static func latestIDs(_ response: TestResponse) throws -> [String] {
        let latest = try #require(try Support.object(response.body)["latest_receipt_info"] as? [[String: Any]])
        return latest.compactMap { $0["transaction_id"] as? String }
    }

    @Test(arguments: [false, true])
    func aLapsedSubscriptionIsAnsweredFromSignedStatusesWithoutVerifyReceipt(remoteFallback: Bool) async throws {
        let standIn = try Self.standIn()
        let folder = try TemporaryFolder()
        let responses = try await standIn.withRunning { addresses in
            try await Self.verify(addresses, remoteFallback: remoteFallback, times: 2, folder: folder)
        }
        for response in responses {
            #expect(response.status == .ok)
            #expect(try Support.status(response.body) == 0)
            #expect(response.headers[.init("X-Receipt-Decided-By")!] == "local")
            let ids = try Self.latestIDs(response)
            #expect(ids.contains(Self.original))
            #expect(ids.contains("2000000900000004"), "Apple's latest renewal, from the ledger: \(ids)")
            let newest = try #require(try Support.object(response.body)["latest_receipt_info"] as? [[String: Any]])
                .compactMap { ($0["expires_date_ms"] as? String).flatMap { Int64($0) } }.max()
            #expect(newest.map { $0 > Self.now.millisecondsSince1970 } == true, "the answer says it is active")
        }
        #expect(standIn.requests().isEmpty, "verifyReceipt is never called")
        let api = standIn.apiRequests()
        #expect(api.map(\.path) == ["/inApps/v1/subscriptions/\(Self.original)"], "asked once; then the ledger knew")
        #expect(api.map(\.environment) == [.sandbox], "in the receipt's environment")
    }

    @Test func aFailingStatusesCallLeavesTheLocalAnswer() async throws {
        let standIn = try Self.standIn()
        standIn.setAPIDefault(.sandbox, .apiError(httpStatus: 500, errorCode: 5_000_001))
        let folder = try TemporaryFolder()
        let responses = try await standIn.withRunning { addresses in
            try await Self.verify(addresses, remoteFallback: false, folder: folder)
        }
        let response = try #require(responses.first)
        #expect(response.status == .ok)
        #expect(response.headers[.init("X-Receipt-Decided-By")!] == "local")
        #expect(try Support.status(response.body) == 0)
        #expect(try Self.latestIDs(response) == [Self.original], "only what the receipt shows")
        #expect(standIn.apiRequests().allSatisfy { $0.path == "/inApps/v1/subscriptions/\(Self.original)" })
        #expect(!standIn.apiRequests().isEmpty)
        #expect(standIn.requests().isEmpty)
    }
}
