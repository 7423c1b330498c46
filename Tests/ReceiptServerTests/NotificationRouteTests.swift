import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

@testable import ReceiptLedger
@testable import ReceiptLedgerStores

/// `POST /v1/notifications/appstore` and `/v1/verify`'s `signed_transaction`, in-process on a SQLite ledger:
/// what is refused (and still audited), V1's authentication and unverified hints, and a retry's single effect.
@Suite("notification routes", .timeLimit(.minutes(2)))
struct NotificationRouteTests {
    typealias Support = ServerTestSupport
    static let path = "/v1/notifications/appstore"

    static let bundle = "org.example.receiptforge.sample"

    /// The test roots (receipts and JWS), the fixtures' app configured unless `configured` is false (or `policy`
    /// given, which then decides).
    static func verifier(allowXcode: Bool, configured: Bool, policy given: ReceiptPolicy? = nil) throws
        -> ReceiptVerifier
    {
        var anchors = TrustAnchors(allowsXcodeStoreKitTesting: allowXcode)
        for root in ["test-root.pem", "test-jws-root.pem"] {
            try anchors.addRoots(fromPath: SharedTestData.packageRoot.appendingPathComponent("certs/\(root)").path)
        }
        var policy = ReceiptPolicy()
        if configured { policy.acceptedBundleIDs = [bundle] }
        return ReceiptVerifier(configuration: .init(trustAnchors: anchors, policy: given ?? policy))
    }

    static func exchange(
        _ bodies: [(String, String)], ledger: Ledger?, sharedSecret: String? = nil, allowXcode: Bool = false,
        configured: Bool = true, policy: ReceiptPolicy? = nil
    ) async throws -> [TestResponse] {
        let service = ReceiptService(
            configuration: Support.configuration(sharedSecret: sharedSecret),
            decider: FallbackVerifier(
                verifier: try verifier(allowXcode: allowXcode, configured: configured, policy: policy)),
            ledger: ledger, logger: Support.quietLogger)
        return try await service.makeApplication().test(.router) { client in
            var responses: [TestResponse] = []
            for (path, body) in bodies {
                responses.append(
                    try await client.execute(
                        uri: path, method: .post, headers: [.contentType: "application/json"],
                        body: ByteBuffer(string: body)))
            }
            return responses
        }
    }

    static func ledger(_ folder: TemporaryFolder) throws -> (Ledger, SQLiteLedgerStore) {
        let store = try SQLiteLedgerStore(path: folder.url.appendingPathComponent("ledger.sqlite").path)
        return (Ledger(store: store), store)
    }

    static func errorCode(_ response: TestResponse) throws -> String? {
        ((try Support.object(response.body))["error"] as? [String: Any])?["code"] as? String
    }

    static func v1(password: String, receipt: String) -> String {
        """
        {"notification_type":"DID_RENEW","password":"\(password)","unified_receipt":{"status":0,\
        "latest_receipt":"\(receipt)","latest_receipt_info":[{"transaction_id":"forged-1",\
        "original_transaction_id":"forged-1","expires_date_ms":"99999999999999"}],\
        "pending_renewal_info":[{"auto_renew_status":"1"}]}}
        """
    }

    @Test func malformedOrForgedNotificationsAreRefusedAndAudited() async throws {
        let folder = try TemporaryFolder()
        let (ledger, store) = try Self.ledger(folder)
        let responses = try await Self.exchange(
            [
                (Self.path, #"{"hello":1}"#), (Self.path, "not json"),
                (Self.path, #"{"signedPayload":"eyJhbGciOiJub25lIn0.eyJub3RpZmljYXRpb25UeXBlIjoiUkVGVU5EIn0."}"#),
            ], ledger: ledger)
        #expect(responses.map(\.status.code) == [400, 400, 422])
        #expect(try Self.errorCode(responses[0]) == "notification.missing_payload")
        #expect(try Self.errorCode(responses[2]) == "notification.rejected")
        let audit = try await store.auditEntries(AuditQuery())
        #expect(audit.map(\.verdict) == [.invalid], "the forged V2 notification is audited, nothing else is")
        #expect(audit.first?.reason?.description == "jws.algorithm_rejected")
        #expect(audit.first?.endpoint == Self.path)
    }

    @Test func versionOneIsAuthenticatedByTheSecretAndItsSignedReceipt() async throws {
        let folder = try TemporaryFolder()
        let (ledger, store) = try Self.ledger(folder)
        let receipt = Base64.encode(try Support.fixture("valid-sha256.receipt"))
        let forged = Base64.encode(try Support.fixture("forged-issuer-signature.receipt"))
        let responses = try await Self.exchange(
            [
                (Self.path, Self.v1(password: "wrong", receipt: receipt)),
                (Self.path, Self.v1(password: "s3cret", receipt: forged)),
                (Self.path, Self.v1(password: "s3cret", receipt: receipt)),
                (Self.path, Self.v1(password: "s3cret", receipt: receipt)),
            ], ledger: ledger, sharedSecret: "s3cret")
        #expect(responses.map(\.status.code) == [403, 422, 200, 200])
        let first = try Support.object(responses[2].body)
        #expect(first["status"] as? String == "recorded")
        #expect((first["new_transaction_ids"] as? [String])?.count == 4)
        #expect(try Support.object(responses[3].body)["status"] as? String == "duplicate")
        #expect(
            try await ledger.transaction(id: "forged-1") == nil, "unsigned latest_receipt_info is never a transaction")
        let hints = try await store.pool.read {
            try String.fetchOne($0, sql: "SELECT unverified_hints FROM ledger_notifications")
        }
        #expect(hints?.hasPrefix(#"{"verified":false,"latest_receipt_info":[{"transaction_id":"forged-1""#) == true)
        let audit = try await store.auditEntries(AuditQuery())
        #expect(audit.map(\.verdict) == [.invalid, .invalid, .valid, .valid], "every notification is audited")
        #expect(audit.first?.reason?.description == "server.shared_secret_mismatch")
        #expect(audit.last?.reason?.description == "notification.duplicate")
    }

    @Test func versionOneNeedsAConfiguredSecret() async throws {
        let folder = try TemporaryFolder()
        let receipt = Base64.encode(try Support.fixture("valid-sha256.receipt"))
        let responses = try await Self.exchange(
            [(Self.path, Self.v1(password: "", receipt: receipt))], ledger: try Self.ledger(folder).0)
        #expect(responses.first?.status.code == 422)
    }

    @Test func aServerConfiguredForNoAppTakesNoJWS() async throws {
        let folder = try TemporaryFolder()
        let responses = try await Self.exchange(
            [
                (Self.path, #"{"signedPayload":"a.b.c"}"#),
                ("/v1/verify", #"{"signed_transaction":"a.b.c"}"#),
            ], ledger: try Self.ledger(folder).0, configured: false)
        #expect(responses.map(\.status.code) == [403, 403])
        #expect(
            try responses.map { try Self.errorCode($0) } == ["server.bundle_id_required", "server.bundle_id_required"])
    }

    @Test func withoutALedgerTheEndpointIsDisabled() async throws {
        let responses = try await Self.exchange([(Self.path, #"{"signedPayload":"a.b.c"}"#)], ledger: nil)
        #expect(responses.first?.status.code == 404)
        #expect(try Self.errorCode(try #require(responses.first)) == "ledger.disabled")
    }

    @Test func aSignedTransactionIsVerifiedAndRecorded() async throws {
        let folder = try TemporaryFolder()
        let (ledger, _) = try Self.ledger(folder)
        let fixtures = SharedTestData.packageRoot.appendingPathComponent("fixtures/jws")
        let minted = try String(
            contentsOf: fixtures.appendingPathComponent("valid-transaction-auto-renewable-sandbox.jws"), encoding: .utf8
        )
        let renewal = try String(contentsOf: fixtures.appendingPathComponent("valid-renewal-info.jws"), encoding: .utf8)
        let body = #"{"signed_transaction":"\#(minted)","account":"alice"}"#
        let responses = try await Self.exchange(
            [("/v1/verify", body), ("/v1/verify", body), ("/v1/verify", #"{"signed_transaction":"\#(renewal)"}"#)],
            ledger: ledger)
        let first = try Support.object(responses[0].body)
        #expect(first["verdict"] as? String == "valid", "\(first)")
        #expect(first["payload_type"] as? String == "transaction")
        let id = try #require((first["ledger"] as? [String: Any])?["new_transaction_ids"] as? [String]).first
        let second = try Support.object(responses[1].body)
        #expect((second["ledger"] as? [String: Any])?["known_transaction_ids"] as? [String] == [try #require(id)])
        let record = try await ledger.transaction(id: try #require(id))
        #expect(record?.0.source == .storeKit)
        #expect(record?.0.kind == .autoRenewable)
        #expect(record?.0.appAccountToken != nil)
        #expect(record?.owner == "alice")
        let third = try Support.object(responses[2].body)
        #expect(third["verdict"] as? String == "invalid", "signed_transaction takes transactions only")
    }

    /// Xcode-signed JWS are signed by a key any developer makes: with the opt-in they verify, and are never recorded.
    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func anXcodeSignedTransactionIsNeverRecorded() async throws {
        let folder = try TemporaryFolder()
        let (ledger, _) = try Self.ledger(folder)
        let jws = try SharedTestData.jwsText("jws-apple-xcode-signed-transaction")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let body = #"{"signed_transaction":"\#(jws)","account":"alice"}"#
        // The sample's bundle id is Apple's example app's: configure it.
        var policy = ReceiptPolicy()
        policy.acceptedBundleIDs = ["com.example.naturelab.backyardbirds.example"]
        var anchors = TrustAnchors(allowsXcodeStoreKitTesting: true)
        try anchors.addRoots(fromPath: SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path)
        let service = ReceiptService(
            configuration: Support.configuration(),
            decider: FallbackVerifier(
                verifier: ReceiptVerifier(configuration: .init(trustAnchors: anchors, policy: policy))),
            ledger: ledger, logger: Support.quietLogger)
        let response = try await service.makeApplication().test(.router) { client in
            try await client.execute(
                uri: "/v1/verify", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: body))
        }
        let object = try Support.object(response.body)
        #expect(object["verdict"] as? String == "valid")
        #expect((object["ledger"] as? [String: Any])?["new_transaction_ids"] as? [String] == [])
        #expect(try await ledger.transaction(id: "0") == nil)
    }
}
