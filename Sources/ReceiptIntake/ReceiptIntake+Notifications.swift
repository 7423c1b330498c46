import BER
public import Logging
import ReceiptCrypto
public import ReceiptLedger
public import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// App Store Server Notifications: each verified locally, recorded once, and every one an audit entry.
///
/// - **Version 2** (`signedPayload`): verified like any JWS, its nested `signedTransactionInfo` and
///   `signedRenewalInfo` too, and held to the operator's ``NotificationPolicy``; recorded by `notificationUUID`, so
///   a retry changes nothing; the renewal state it carries replaces the ledger's only when Apple signed it later.
/// - **Version 1**: authenticated by its password (the shared secret, compared in constant time) and by verifying
///   `unified_receipt.latest_receipt` locally; only that signed receipt's transactions are recorded. The unsigned
///   members are kept with the notification as unverified hints, never as transactions.
///
/// A notification that fails verification changes nothing but its audit entry and is refused
/// (``IntakeError/Code/notificationRejected``); a wrong V1 password is refused with
/// ``IntakeError/Code/sharedSecretMismatch``. The answer comes only once the ledger holds the notification durably.
extension ReceiptIntake {
    /// A recorded notification: its record and the ledger's outcome (a retry is a duplicate).
    public struct NotificationAnswer: Sendable {
        public let notification: LedgerNotification
        public let outcome: LedgerOutcome
    }

    /// Receives a V2 notification's `signedPayload`.
    public func receiveNotification(_ signedPayload: [UInt8], auditEndpoint: String, now: ReceiptDate, logger: Logger)
        async throws(IntakeError) -> NotificationAnswer
    {
        let ledger = try requireLedger()
        try requireConfiguredApps()
        // signedPayload holds a notification: its kind comes from the member, never from its contents.
        let verdict = try await inSlot {
            decider.jwsVerifier.verifyNotification(signedPayload[...], policy: rules.notifications, now: now)
        }
        return try await apply(
            verdict, received: signedPayload, auditEndpoint: auditEndpoint, now: now, ledger: ledger, logger: logger)
    }

    /// Records a verified V2 notification (pushed, or fetched from Apple's history): its audit entry always, its
    /// facts only when it is valid.
    /// - Throws: ``IntakeError`` `notificationRejected` for one that is not valid (after its audit entry),
    ///   `ledgerUnavailable`, `digestFailed`.
    func apply(
        _ verdict: JWSVerdict, received signedPayload: [UInt8], auditEndpoint: String, now: ReceiptDate, ledger: Ledger,
        logger: Logger
    ) async throws(IntakeError) -> NotificationAnswer {
        let entry = try LedgerEntry(
            jws: verdict, received: signedPayload, endpoint: auditEndpoint, account: nil, time: now,
            catalogue: ledger.catalogue, onConflict: .report)
        let outcome = try await record(entry, logger: logger)
        guard verdict.isValid, let outcome, let notification = entry.notification else {
            let reason = verdict.reason.map { "\($0.code): \($0.message)" } ?? "not valid"
            throw IntakeError(.notificationRejected, "the notification does not verify: \(reason)")
        }
        return NotificationAnswer(notification: notification, outcome: outcome)
    }

    /// Receives a V1 notification.
    public func receiveNotification(
        _ call: NotificationV1Call, auditEndpoint: String, now: ReceiptDate, logger: Logger
    ) async throws(IntakeError) -> NotificationAnswer {
        let ledger = try requireLedger()
        try requireConfiguredApps()
        guard let secret = rules.sharedSecret else {
            throw IntakeError(
                .notificationRejected,
                "version 1 notifications are authenticated by the shared secret, and this server has none configured")
        }
        guard let password = call.password,
            IntakeRules.constantTimeEquals(Array(secret.utf8), Array(password.utf8))
        else {
            // Audited (every notification is), nothing else.
            _ = try await record(
                LedgerEntry(
                    time: now, endpoint: auditEndpoint,
                    receiptSHA256: try LedgerEntry.sha256(ofDecoded: call.latestReceipt), verdict: .invalid,
                    reason: .refusal(code: IntakeError.Code.sharedSecretMismatch.description), decidedBy: .local,
                    account: nil,
                    transactions: []), logger: logger)
            throw IntakeError(.sharedSecretMismatch, "password is not this server's shared secret")
        }
        // The signed receipt is verified locally, never sent to Apple: a notification is Apple's own push.
        let local = try await inSlot {
            await decider.verifyLocally(
                call.latestReceipt[...], request: FallbackRequest(now: now, allowsRemote: false))
        }
        let verdict = local.verdict
        var entry = try LedgerEntry(
            verification: .local(verdict), received: call.latestReceipt[...], endpoint: auditEndpoint, account: nil,
            time: now, catalogue: ledger.catalogue, onConflict: .report)
        let type = call.notificationType
        let notification = LedgerNotification(
            id: try Self.v1NotificationID(
                receiptSHA256: entry.receiptSHA256, type: type, hints: call.unverifiedHints), version: "1",
            notificationType: LedgerLimits.isText(type, maximum: LedgerLimits.maximumNameLength) ? type : "",
            received: now, unverifiedHints: call.unverifiedHints)
        if verdict.isValid { entry.notification = notification }
        let outcome = try await record(entry, logger: logger)
        guard verdict.isValid, let outcome else {
            let reason = verdict.reason.map { "\($0.code): \($0.message)" } ?? "not valid"
            throw IntakeError(.notificationRejected, "its latest_receipt does not verify: \(reason)")
        }
        return NotificationAnswer(notification: notification, outcome: outcome)
    }

    /// A V1 notification has no id of its own: the digest of its verified receipt, its type and its unsigned
    /// members stands in, so Apple's retries of it (the same body) are recorded once, and two notifications that
    /// differ only in what they tell unsigned are two.
    /// - Throws: ``IntakeError/Code/digestFailed`` when OpenSSL cannot compute the digest: an id that is not this
    ///   notification's would make every later one a duplicate.
    static func v1NotificationID(receiptSHA256: String, type: String, hints: String) throws(IntakeError) -> String {
        let parts: [ArraySlice<UInt8>] = [
            Array(receiptSHA256.utf8)[...], [0], Array(type.utf8)[...], [0], Array(hints.utf8)[...],
        ]
        do {
            return "v1:" + Hex.encode(try DigestAlgorithm.sha256.hash(concatenating: parts))
        } catch {
            throw IntakeError(.digestFailed, "the notification's id cannot be computed: \(error)")
        }
    }
}
