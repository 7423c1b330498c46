import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptForge
import ReceiptModel
import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

@testable import ReceiptLedger
@testable import ReceiptLedgerStores

/// What Apple sends today, taken exactly: the real 2025 notification, every type of the conformance corpus (and ones
/// Apple has not defined yet) answered 200 once verified, and the app Apple id checked as Apple checks it.
@Suite("notification conformance", .timeLimit(.minutes(2)))
struct NotificationConformanceTests {
    typealias Routes = NotificationRouteTests
    static let path = NotificationRouteTests.path
    static let corpus = SharedTestData.packageRoot.appendingPathComponent("fixtures/jws")
    static let minter = JWSMinter(pki: TestPKI(directory: SharedTestData.packageRoot.appendingPathComponent("certs")))

    static let realBody = "notifications/n2-sessionpro-did-renew-sandbox-2025.json"
    static let realBundle = "com.loki-project.loki-messenger"
    static let realTransaction = "2000001024998954"

    static func policy(bundles: Set<String>, appAppleIDs: Set<Int64>?) -> ReceiptPolicy {
        var policy = ReceiptPolicy()
        policy.acceptedBundleIDs = bundles
        policy.acceptedAppAppleIDs = appAppleIDs
        return policy
    }

    /// The real DID_RENEW Apple sent a Sandbox app in 2025: recorded by a server configured for that app (its nested
    /// renewal info carries appTransactionId and is read as the renewal info it is), refused by a server configured
    /// for another app, which records nothing but the audit entry.
    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func theReal2025NotificationIsRecordedForItsAppOnly() async throws {
        let body = String(
            decoding: try SharedTestData.bytes(
                at: SharedTestData.receiptsDirectory.appendingPathComponent(Self.realBody)),
            as: UTF8.self)
        let folder = try TemporaryFolder()
        let (ledger, store) = try Routes.ledger(folder)
        let ours = try await Routes.exchange(
            [(Self.path, body), (Self.path, body)], ledger: ledger,
            policy: Self.policy(bundles: [Self.realBundle], appAppleIDs: [1_470_168_868]))
        #expect(ours.map(\.status.code) == [200, 200])
        let answer = try ServerTestSupport.object(ours[0].body)
        #expect(answer["status"] as? String == "recorded")
        #expect(answer["notification_type"] as? String == "DID_RENEW")
        #expect(answer["new_transaction_ids"] as? [String] == [Self.realTransaction])
        #expect(try ServerTestSupport.object(ours[1].body)["status"] as? String == "duplicate")
        let renewals = try await store.subscriptions(originalTransactionIDs: ["2000001024993299"]).renewals
        #expect(renewals.map(\.autoRenewProductID) == ["com.getsession.org.pro_sub"])

        let otherFolder = try TemporaryFolder()
        let (otherLedger, otherStore) = try Routes.ledger(otherFolder)
        let theirs = try await Routes.exchange(
            [(Self.path, body)], ledger: otherLedger,
            policy: Self.policy(bundles: ["org.example.receiptforge.sample"], appAppleIDs: [1_234_567_890]))
        #expect(theirs.map(\.status.code) == [422])
        #expect(try Routes.errorCode(theirs[0]) == "notification.rejected")
        #expect(try await otherStore.transaction(id: Self.realTransaction) == nil)
        #expect(
            try await otherStore.auditEntries(AuditQuery()).map(\.reason?.description) == ["policy.bundle_id_rejected"])
    }

    /// Every verified notification of the corpus, of every type and subtype Apple documents and of types it has not
    /// defined, is recorded and answered 200 (so Apple stops retrying), whatever the ledger does with it.
    @Test func everyVerifiedNotificationIsAnswered200() async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
            .filter { $0.hasPrefix("corpus-") && $0.hasSuffix(".body.json") }.sorted()
        #expect(names.count >= 40)
        let bodies = try names.map {
            (Self.path, try String(contentsOf: Self.corpus.appendingPathComponent($0), encoding: .utf8))
        }
        let folder = try TemporaryFolder()
        let (ledger, _) = try Routes.ledger(folder)
        let responses = try await Routes.exchange(
            bodies, ledger: ledger,
            policy: Self.policy(bundles: [NotificationRouteTests.bundle], appAppleIDs: [1_234_567_890]))
        for (name, response) in zip(names, responses) {
            #expect(response.status.code == 200, "\(name): \(String(buffer: response.body))")
            #expect(try ServerTestSupport.object(response.body)["status"] as? String == "recorded", "\(name)")
        }
    }

    /// A V2 notification with `data` as `environment` and `appAppleId` say.
    static func notification(environment: String, appAppleID: Int64?, uuid: String) throws -> String {
        var data: [String: Any] = [
            "bundleId": NotificationRouteTests.bundle, "bundleVersion": "1", "environment": environment,
        ]
        if let appAppleID { data["appAppleId"] = appAppleID }
        let payload = try JSONSerialization.data(
            withJSONObject: [
                "notificationType": "TEST", "notificationUUID": uuid, "version": "2.0",
                "signedDate": 1_749_979_800_000, "data": data,
            ], options: [.sortedKeys])
        let jws = try Self.minter.mint(payloadJSON: [UInt8](payload), variant: nil)
        return String(decoding: JWSMinter.notificationBody(signedPayload: jws), as: UTF8.self)
    }

    /// Apple's rule: the app Apple id is compared in Production only (Apple leaves it out in Sandbox). With it
    /// configured, a Sandbox notification naming none is taken; a Production one must name a configured one.
    @Test func theAppAppleIDIsCheckedInProductionOnly() async throws {
        let folder = try TemporaryFolder()
        let (ledger, store) = try Routes.ledger(folder)
        var policy = Self.policy(bundles: [NotificationRouteTests.bundle], appAppleIDs: [1_234_567_890])
        policy.acceptedEnvironments = [.production, .sandbox]
        let responses = try await Routes.exchange(
            [
                (Self.path, try Self.notification(environment: "Sandbox", appAppleID: nil, uuid: "sandbox-none")),
                (
                    Self.path,
                    try Self.notification(environment: "Sandbox", appAppleID: 1_234_567_890, uuid: "sandbox-ours")
                ),
                (
                    Self.path,
                    try Self.notification(environment: "Production", appAppleID: 1_234_567_890, uuid: "prod-ours")
                ),
                (Self.path, try Self.notification(environment: "Production", appAppleID: 99, uuid: "prod-other")),
                (Self.path, try Self.notification(environment: "Production", appAppleID: nil, uuid: "prod-none")),
            ], ledger: ledger, policy: policy)
        #expect(responses.map(\.status.code) == [200, 200, 200, 422, 422])
        let reasons = try await store.auditEntries(AuditQuery()).map(\.reason?.description)
        #expect(reasons == [nil, nil, nil, "policy.app_apple_id_rejected", "policy.app_apple_id_rejected"])
    }

    /// A body that is both versions is neither.
    @Test func aBodyWithBothVersionsIsRefused() async throws {
        let folder = try TemporaryFolder()
        let (ledger, _) = try Routes.ledger(folder)
        let responses = try await Routes.exchange(
            [(Self.path, #"{"signedPayload":"a.b.c","notification_type":"DID_RENEW"}"#)], ledger: ledger)
        #expect(responses.map(\.status.code) == [400])
    }
}
