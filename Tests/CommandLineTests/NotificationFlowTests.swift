import Foundation
import TestSupport
import Testing

/// Issue 14's end-to-end flow against a live `receipt-server` with its ledger (SQLite, then PostgreSQL) and the
/// Apple stand-in as Apple: a minted receipt whose subscription has lapsed; a V2 DID_RENEW for it makes
/// `/verifyReceipt` answer the renewal locally and `/v1/entitlements` say `active`; the same notification twice has
/// one effect; an older notification after a newer one has none; a REFUND makes it `revoked`; a forged one gets
/// 4xx and has none. Notifications are minted by the built `mint-receipt jws` under the test JWS chain.
@Suite(
    .enabled(
        if: ["receipt-server", "mint-receipt", "apple-standin"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: SharedTestData.executable($0).path)
        }, "receipt-server, mint-receipt or apple-standin is not built: notification flow skipped"),
    .serialized, .timeLimit(.minutes(2)))
struct NotificationFlowTests {
    static let certs = SharedTestData.packageRoot.appendingPathComponent("certs")
    static let secret = "flow-shared-secret"
    static let original = "2000000777000001"
    static let lapsed = "2000000777000001"
    static let renewed = "2000000777000002"
    static let bundle = "org.example.receiptforge.sample"
    static let product = "org.example.receiptforge.monthly"

    @Test func theFlowOnSQLite() async throws {
        let folder = try TemporaryFolder()
        try await Self.flow(ledger: "sqlite:" + folder.url.appendingPathComponent("ledger.sqlite").path, in: folder)
    }

    @Test(.enabled(if: PostgresTestDatabase.clusterURL != nil, Comment(rawValue: PostgresTestDatabase.skipMessage)))
    func theFlowOnPostgreSQL() async throws {
        let database = try await PostgresTestDatabase.create(prefix: "notification_flow")
        defer { database.drop() }
        try await Self.flow(ledger: database.url, in: try TemporaryFolder())
    }

    static func flow(ledger: String, in folder: TemporaryFolder) async throws {
        let standIn = try await StandInProcess()
        let server = try await ReceiptServerProcess(
            [
                "--ledger", ledger, "--bundle-id", bundle, "--root", certs.appendingPathComponent("test-root.pem").path,
                "--root",
                certs.appendingPathComponent("test-jws-root.pem").path, "--remote-fallback", "--apple-production-url",
                standIn.productionURL, "--apple-sandbox-url", standIn.sandboxURL,
            ], environment: ["RECEIPT_SERVER_SHARED_SECRET": secret], in: folder.url)
        defer { server.kill() }
        let client = LoopbackHTTPClient()
        let port = server.port
        let receipt = try await ReceiptCorpus.mint([[.renewal(lapsed, of: original, period: 0)]], in: folder.url)[0]
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let day: Int64 = 86_400_000

        // The receipt binds the subscription to alice; its subscription lapsed in 2025, so with the shared secret
        // the server asks Apple (the stand-in) about it: nothing newer is known yet.
        let bound = try await client.post(
            port: port, "/v1/verify",
            json: try JSONSerialization.data(withJSONObject: ["receipt_data": receipt.base64, "account": "alice"]))
        #expect(bound.status == 200)
        let verifyReceipt = try JSONSerialization.data(withJSONObject: [
            "receipt-data": receipt.base64, "password": secret,
        ])
        let before = try await client.post(port: port, "/sandbox/verifyReceipt", json: verifyReceipt)
        #expect(before.headers["x-receipt-decided-by"] == "remote", "a lapsed subscription goes to Apple")
        #expect(try await Self.state(client, port) == "expired")

        // DID_RENEW: a renewal the receipt does not show, signed yesterday, expiring in 30 days.
        let renew = try await Self.notification(
            "DID_RENEW", uuid: "flow-renew", signed: now - day, transaction: renewed, expires: now + 30 * day,
            revoked: nil, autoRenew: 1, retry: false, in: folder)
        let first = try await client.post(port: port, "/v1/notifications/appstore", json: renew)
        #expect(first.status == 200, "\(String(decoding: first.body, as: UTF8.self))")
        #expect(try first.json()["status"] as? String == "recorded")
        #expect(try first.json()["new_transaction_ids"] as? [String] == [renewed])

        let after = try await client.post(port: port, "/sandbox/verifyReceipt", json: verifyReceipt)
        #expect(after.headers["x-receipt-decided-by"] == "local", "the ledger knows the renewal: Apple is not asked")
        let answer = try after.json()
        #expect(answer["status"] as? Int == 0)
        let latest = (answer["latest_receipt_info"] as? [[String: Any]])?.compactMap { $0["transaction_id"] as? String }
        #expect(latest == [lapsed, renewed])
        let pending = answer["pending_renewal_info"] as? [[String: Any]]
        #expect(pending?.first?["auto_renew_status"] as? String == "1")
        // exclude-old-transactions holds on an answer from the ledger too: the newest of the subscription only.
        let newestOnly = try await client.post(
            port: port, "/sandbox/verifyReceipt",
            json: try JSONSerialization.data(withJSONObject: [
                "receipt-data": receipt.base64, "password": secret, "exclude-old-transactions": true,
            ]))
        #expect(newestOnly.headers["x-receipt-decided-by"] == "local")
        let trimmed = (try newestOnly.json()["latest_receipt_info"] as? [[String: Any]])?.compactMap {
            $0["transaction_id"] as? String
        }
        #expect(trimmed == [renewed], "only the subscription's newest transaction")
        #expect(try await Self.state(client, port) == "active")

        // The same notification again: 200, one effect.
        let again = try await client.post(port: port, "/v1/notifications/appstore", json: renew)
        #expect(again.status == 200)
        #expect(try again.json()["status"] as? String == "duplicate")

        // An older notification (signed before the DID_RENEW) arriving after it changes no state.
        let older = try await Self.notification(
            "DID_CHANGE_RENEWAL_STATUS", uuid: "flow-older", signed: now - 2 * day, transaction: renewed,
            expires: now + 30 * day, revoked: nil, autoRenew: 0, retry: true, in: folder)
        let stale = try await client.post(port: port, "/v1/notifications/appstore", json: older)
        #expect(stale.status == 200)
        #expect(try stale.json()["stale_renewals"] as? Int == 1)
        let unchanged = try await client.post(port: port, "/sandbox/verifyReceipt", json: verifyReceipt)
        let renewal = (try unchanged.json()["pending_renewal_info"] as? [[String: Any]])?.first
        #expect(renewal?["auto_renew_status"] as? String == "1", "the newer renewal info stays")
        #expect(renewal?["is_in_billing_retry_period"] as? String == "0")
        #expect(try await Self.state(client, port) == "active")

        // A forged notification (signed under a root nobody trusts): 4xx, no effect.
        let forged = try await Self.notification(
            "REFUND", uuid: "flow-forged", signed: now - 3_600_000, transaction: renewed, expires: now + 30 * day,
            revoked: now - 3_600_000, autoRenew: 1, retry: false, in: folder, variant: "wrong-root")
        let refused = try await client.post(port: port, "/v1/notifications/appstore", json: forged)
        #expect((400..<500).contains(refused.status))
        #expect(try await Self.state(client, port) == "active")

        // REFUND: the renewal's transaction revoked.
        let refund = try await Self.notification(
            "REFUND", uuid: "flow-refund", signed: now - 3_600_000, transaction: renewed, expires: now + 30 * day,
            revoked: now - 3_600_000, autoRenew: 1, retry: false, in: folder)
        let refunded = try await client.post(port: port, "/v1/notifications/appstore", json: refund)
        #expect(refunded.status == 200)
        #expect(try await Self.state(client, port) == "revoked")

        // REFUND_REVERSED, signed after the REFUND: the refund is cleared; the REFUND replayed changes nothing.
        let reversal = try await Self.notification(
            "REFUND_REVERSED", uuid: "flow-reversed", signed: now - 600_000, transaction: renewed,
            expires: now + 30 * day, revoked: nil, autoRenew: 1, retry: false, in: folder)
        #expect(try await client.post(port: port, "/v1/notifications/appstore", json: reversal).status == 200)
        #expect(try await Self.state(client, port) == "active")
        let lateRefund = try await Self.notification(
            "REFUND", uuid: "flow-refund-late", signed: now - 3_000_000, transaction: renewed, expires: now + 30 * day,
            revoked: now - 3_600_000, autoRenew: 1, retry: false, in: folder)
        #expect(try await client.post(port: port, "/v1/notifications/appstore", json: lateRefund).status == 200)
        #expect(try await Self.state(client, port) == "active", "a REFUND signed before the reversal has no effect")

        // A refund of a transaction the receipt itself lists: /verifyReceipt shows it, from the ledger.
        let refundListed = try await Self.notification(
            "REFUND", uuid: "flow-refund-listed", signed: now - 1_800_000, transaction: lapsed,
            expires: 1_740_073_148_000, revoked: now - 1_800_000, autoRenew: 1, retry: false, in: folder)
        #expect(try await client.post(port: port, "/v1/notifications/appstore", json: refundListed).status == 200)
        let shown = try await client.post(port: port, "/sandbox/verifyReceipt", json: verifyReceipt)
        let entry = (try shown.json()["latest_receipt_info"] as? [[String: Any]])?.first {
            $0["transaction_id"] as? String == lapsed
        }
        #expect(entry?["cancellation_date_ms"] as? String == String(now - 1_800_000), "\(String(describing: entry))")

        // Without a password nothing would ask Apple: the ledger's state comes back with the verification's own
        // record (read in its commit), and the answer is the same.
        let unasked = try await client.post(
            port: port, "/sandbox/verifyReceipt",
            json: try JSONSerialization.data(withJSONObject: ["receipt-data": receipt.base64]))
        #expect(unasked.headers["x-receipt-decided-by"] == "local")
        let unaskedAnswer = try unasked.json()
        let unaskedLatest = unaskedAnswer["latest_receipt_info"] as? [[String: Any]]
        #expect(unaskedLatest?.compactMap { $0["transaction_id"] as? String } == [lapsed, renewed])
        #expect(unaskedLatest?.first?["cancellation_date_ms"] as? String == String(now - 1_800_000))
        #expect(
            (unaskedAnswer["pending_renewal_info"] as? [[String: Any]])?.first?["auto_renew_status"] as? String == "1")

        // Every notification is in the audit trail: eight, the forged one invalid, the retry a duplicate.
        let audit = try await CommandRunner("receipt-server").run(["ledger", "audit", "--ledger", ledger])
        let entries = try audit.jsonLines().filter { $0["endpoint"] as? String == "/v1/notifications/appstore" }
        #expect(entries.count == 8)
        #expect(
            entries.compactMap { $0["reason"] as? String }.sorted() == [
                "chain.untrusted_root", "notification.duplicate",
            ])
    }

    struct MintFailed: Error { let message: String }

    /// alice's entitlement state for the subscription.
    static func state(_ client: LoopbackHTTPClient, _ port: Int) async throws -> String? {
        let answer = try await client.get(port: port, "/v1/entitlements?account=alice")
        let entitlements = try answer.json()["entitlements"] as? [[String: Any]]
        return entitlements?.first { $0["original_transaction_id"] as? String == original }?["state"] as? String
    }

    /// A V2 notification's POST body, minted by `mint-receipt jws` (`variant` names a hostile variant).
    static func notification(
        _ type: String, uuid: String, signed: Int64, transaction id: String, expires: Int64, revoked: Int64?,
        autoRenew: Int, retry: Bool, in folder: TemporaryFolder, variant: String? = nil
    ) async throws -> Data {
        var transaction: [String: Any] = [
            "transactionId": id, "originalTransactionId": original, "webOrderLineItemId": id, "bundleId": bundle,
            "productId": product, "purchaseDate": expires - 30 * 86_400_000, "originalPurchaseDate": 1_737_394_748_000,
            "expiresDate": expires, "quantity": 1, "type": "Auto-Renewable Subscription",
            "inAppOwnershipType": "PURCHASED", "signedDate": signed, "environment": "Sandbox",
            "transactionReason": "RENEWAL",
        ]
        if let revoked {
            transaction["revocationDate"] = revoked
            transaction["revocationReason"] = 0
        }
        let renewal: [String: Any] = [
            "originalTransactionId": original, "autoRenewProductId": product, "productId": product,
            "autoRenewStatus": autoRenew, "isInBillingRetryPeriod": retry, "signedDate": signed,
            "environment": "Sandbox",
        ]
        var request: [String: Any] = [
            "notification": [
                "notificationType": type, "notificationUUID": uuid, "version": "2.0", "signedDate": signed,
                "data": [
                    "appAppleId": 1_234_567_890, "bundleId": bundle, "bundleVersion": "42", "environment": "Sandbox",
                    "transaction": transaction, "renewalInfo": renewal, "status": 1,
                ],
            ]
        ]
        request["expected"] = ["verdict": variant == nil ? "valid" : "invalid", "exercises": "the notification flow"]
        if let variant { request["variant"] = variant }
        let file = folder.url.appendingPathComponent("\(uuid).json")
        try JSONSerialization.data(withJSONObject: request).write(to: file)
        let outcome = try await CommandRunner("mint-receipt").run(
            ["jws", "--pki", certs.path, "-o", "-", file.path], in: SharedTestData.packageRoot)
        guard outcome.status == 0 else { throw MintFailed(message: outcome.standardError) }
        return try JSONSerialization.data(withJSONObject: ["signedPayload": outcome.standardOutput])
    }
}
