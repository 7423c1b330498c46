import BER
import Hummingbird
import ReceiptCrypto
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// `POST /v1/notifications/appstore`: the URL an operator gives Apple for App Store Server Notifications.
///
/// - **Version 2** (`{"signedPayload": "<jws>"}`): verified locally like any JWS (the operator's validation time
///   and policy), its nested `signedTransactionInfo` and `signedRenewalInfo` too; recorded by `notificationUUID`, so
///   a retry answers 200 and changes nothing; the renewal state it carries replaces the ledger's only when Apple
///   signed it later. 200 only once the ledger holds it durably.
/// - **Version 1** (`notification_type`, `password`, `unified_receipt`): authenticated by `password` (the configured
///   shared secret, compared in constant time) and by verifying `unified_receipt.latest_receipt` locally; only
///   that signed receipt's transactions are recorded. The unsigned `latest_receipt_info` and
///   `pending_renewal_info` are kept with the notification as unverified hints, never as transactions.
///
/// A notification that fails verification is answered 422 `notification.rejected` and changes nothing but its
/// audit entry; a wrong V1 password 403 `server.shared_secret_mismatch`. Every notification is an audit entry.
extension ReceiptRoutes {
    static let notificationEndpoint = "/v1/notifications/appstore"

    func notification(_ request: Request, context: some RequestContext) async throws(ServerError) -> Response {
        let ledger = try requireLedger()
        try requireConfiguredApps()
        let body = try NotificationBody(parsing: try await bodyReader.read(request))
        let now = configuration.clock()
        switch body {
        case .version2(let signedPayload):
            return try await notificationV2(signedPayload, ledger: ledger, now: now, context: context)
        case .version1(let notification):
            return try await notificationV1(notification, ledger: ledger, now: now, context: context)
        }
    }

    private func notificationV2(_ text: [UInt8], ledger: Ledger, now: ReceiptDate, context: some RequestContext)
        async throws(ServerError) -> Response
    {
        // signedPayload holds a notification: its kind comes from the member, never from its contents.
        var verdict = try verifyJWS(text, kind: .notification, validationTime: nil, policy: nil, now: now)
        // As Apple's libraries require: a Production notification is taken only for the configured app Apple ids.
        if verdict.isValid, verdict.environment == .production, decider.policy.acceptedAppAppleIDs == nil {
            verdict = Self.refusing(
                verdict, "jws: a Production notification needs the app's Apple id configured (--app-apple-id)",
                code: .policyAppAppleIDRejected)
        }
        var entry = LedgerEntry(
            jws: verdict, received: text, endpoint: Self.notificationEndpoint, account: nil, time: now,
            catalogue: ledger.catalogue, onConflict: .report)
        if verdict.isValid, entry.notification == nil {
            // Signed for Xcode (trusted only with the opt-in): verified, never recorded. Otherwise, without a usable
            // notificationUUID a retry could not be told from a new notification.
            verdict = Self.refusing(
                verdict,
                verdict.environment == .xcode
                    ? "jws: a notification signed for Xcode's StoreKit testing is never recorded"
                    : "jws: the notification has no usable notificationUUID")
            entry = LedgerEntry(
                jws: verdict, received: text, endpoint: Self.notificationEndpoint, account: nil, time: now,
                catalogue: ledger.catalogue, onConflict: .report)
        }
        let outcome = try await recordEntry(entry, context: context)
        guard verdict.isValid, let outcome, let notification = entry.notification else {
            let reason = verdict.reason.map { "\($0.code): \($0.message)" } ?? "not valid"
            throw ServerError(.notificationRejected, "the notification does not verify: \(reason)")
        }
        return Self.notificationAnswer(notification, outcome)
    }

    private func notificationV1(
        _ body: NotificationBody.Version1, ledger: Ledger, now: ReceiptDate, context: some RequestContext
    ) async throws(ServerError) -> Response {
        guard let secret = configuration.sharedSecret else {
            throw ServerError(
                .notificationRejected,
                "version 1 notifications are authenticated by the shared secret, and this server has none configured")
        }
        guard let password = body.password, Self.constantTimeEquals(Array(secret.utf8), Array(password.utf8)) else {
            // Audited (every notification is), nothing else.
            _ = try await recordEntry(
                LedgerEntry(
                    time: now, endpoint: Self.notificationEndpoint,
                    receiptSHA256: LedgerEntry.sha256(ofDecoded: body.latestReceipt), verdict: .invalid,
                    reason: .refusal(code: ServerError.Code.sharedSecretMismatch.description), decidedBy: .local,
                    account: nil,
                    transactions: []), context: context)
            throw ServerError(.sharedSecretMismatch, "password is not this server's shared secret")
        }
        let type = body.notificationType
        let received = body.latestReceipt
        guard limiter.tryAcquire() else {
            throw ServerError(.overloaded, "more than \(limiter.limit) requests in flight")
        }
        let verdict = decider.jwsVerifier.verify(received, now: now)
        limiter.release()
        var entry = LedgerEntry(
            verification: .local(verdict), received: received, endpoint: Self.notificationEndpoint, account: nil,
            time: now, catalogue: ledger.catalogue, onConflict: .report)
        let notification = LedgerNotification(
            id: Self.v1NotificationID(
                receiptSHA256: entry.receiptSHA256, type: type, hints: body.unverifiedHints), version: "1",
            notificationType: LedgerLimits.isText(type, maximum: LedgerLimits.maximumNameLength) ? type : "",
            received: now, unverifiedHints: body.unverifiedHints)
        if verdict.isValid { entry.notification = notification }
        let outcome = try await recordEntry(entry, context: context)
        guard verdict.isValid, let outcome else {
            let reason = verdict.reason.map { "\($0.code): \($0.message)" } ?? "not valid"
            throw ServerError(.notificationRejected, "its latest_receipt does not verify: \(reason)")
        }
        return Self.notificationAnswer(notification, outcome)
    }

    /// `{"status":"recorded"|"duplicate","notification_id","version","notification_type","new_transaction_ids",
    /// "stale_renewals"}`.
    static func notificationAnswer(_ notification: LedgerNotification, _ outcome: LedgerOutcome) -> Response {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.field("status", outcome.isDuplicateNotification ? "duplicate" : "recorded")
        writer.field("notification_id", notification.id)
        writer.field("version", notification.version)
        writer.field("notification_type", notification.notificationType)
        writer.key("new_transaction_ids")
        writer.beginArray()
        for id in outcome.newTransactionIDs { writer.string(id) }
        writer.endArray()
        writer.field("stale_renewals", Int64(outcome.staleRenewals))
        writer.endObject()
        return jsonResponse(.ok, body: writer.bytes)
    }

    /// A V1 notification has no id of its own: the digest of its verified receipt, its type and its unsigned
    /// members stands in, so Apple's retries of it (the same body) are recorded once, and two notifications that
    /// differ only in what they tell unsigned are two.
    static func v1NotificationID(receiptSHA256: String, type: String, hints: String) -> String {
        let parts: [ArraySlice<UInt8>] = [
            Array(receiptSHA256.utf8)[...], [0], Array(type.utf8)[...], [0], Array(hints.utf8)[...],
        ]
        let digest = (try? DigestAlgorithm.sha256.hash(concatenating: parts)) ?? []
        return "v1:" + Hex.encode(digest)
    }

    /// `verdict` made invalid for `message` (a well-signed JWS that is not what the endpoint takes).
    static func refusing(_ verdict: JWSVerdict, _ message: String, code: Reason.Code = .jwsMalformed) -> JWSVerdict {
        JWSVerdict(
            outcome: .invalid, reasons: [Reason(code, message)], jws: verdict.jws, payload: verdict.payload,
            environment: verdict.environment, validationTime: verdict.validationTime,
            validationInstant: verdict.validationInstant, chain: verdict.chain, nested: verdict.nested)
    }
}
