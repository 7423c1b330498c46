public import ReceiptModel
public import ReceiptVerification

/// One verification, as the ledger is asked to record it: the audit entry's facts and, for a valid receipt,
/// its transactions.
///
/// The ledger records transactions only when ``verdict`` is `valid`; for any other verdict they are ignored
/// and only the audit entry is written.
public struct LedgerEntry: Sendable {
    /// When the verification was answered (the caller's clock).
    public var time: ReceiptDate
    /// The route or command that verified (`/verifyReceipt`, `/v1/verify`, …).
    public var endpoint: String
    /// SHA-256 of the decoded receipt bytes (of the bytes as received when they did not decode), lower-case hex.
    public var receiptSHA256: String
    public var verdict: Verdict.Outcome
    /// The deciding reason code, if any.
    public var reason: AuditReason?
    public var decidedBy: DecidedBy
    /// The app's user id the verification names, if any (1-256 bytes of UTF-8).
    public var account: String?
    /// The receipt's transactions, each with `firstSeen` and `lastSeen` equal to ``time``.
    public var transactions: [LedgerTransaction]
    /// Verified renewal infos (StoreKit 2 JWS), applied by their signed dates.
    public var renewals: [LedgerRenewal] = []
    /// The notification this entry records, when it is one: a second entry with the same id changes nothing.
    public var notification: LedgerNotification?
    /// Original transaction ids whose subscriptions the caller wants back with the outcome
    /// (``LedgerOutcome/subscriptions``), as the entry's batch leaves them: read with the batch's own snapshot, so
    /// a caller that answers from what the ledger holds pays no read of its own.
    public var readsSubscriptions: [String] = []
    /// Whether the verification reports new transactions to a backend: to the purchase's owner when it names the
    /// owner's account, to callers naming no account when it names none. A notification (``notification``) never
    /// does, whatever this says: Apple's push records facts and leaves every transaction pending for those who
    /// credit it (docs/ledger.md, "New to whom").
    package var reportsNew = true
    public var onConflict: ConflictPolicy
    /// The entry's ``LedgerReceiptKey``, computed by ``Ledger/record(_:)`` on the caller's task before the entry joins
    /// a batch, so that the writer does not hash every transaction of every verification itself; `nil` when not
    /// computed yet (a store computes it then).
    package var preparedReceiptKey: String??
    /// The entry comes without its transactions, to be answered from its receipt key (``preparedReceiptKey``) alone,
    /// which the caller has seen the ledger know (``Ledger/record(_:receiptKey:derive:)``). A ledger that does not
    /// know the key writes nothing for it and says so (``LedgerOutcome/ReceiptKeyState/missing``).
    package var answersFromKeyOnly = false

    public init(
        time: ReceiptDate, endpoint: String, receiptSHA256: String, verdict: Verdict.Outcome, reason: AuditReason?,
        decidedBy: DecidedBy, account: String?, transactions: [LedgerTransaction], onConflict: ConflictPolicy = .report
    ) {
        self.time = time
        self.endpoint = endpoint
        self.receiptSHA256 = receiptSHA256
        self.verdict = verdict
        self.reason = reason
        self.decidedBy = decidedBy
        self.account = account
        self.transactions = transactions
        self.onConflict = onConflict
    }

    /// The longest account id accepted, in UTF-8 bytes.
    public static let maximumAccountLength = 256

    /// Whether `account` is an account id the ledger takes: 1 to 256 bytes of UTF-8 without U+0000 (which
    /// PostgreSQL's text cannot hold).
    public static func isValidAccount(_ account: String) -> Bool {
        let count = account.utf8.count
        return count >= 1 && count <= maximumAccountLength && !account.utf8.contains(0)
    }

    /// Why the entry cannot be recorded as it is (a value outside ``LedgerLimits``), or `nil`. Checked before the
    /// entry joins a batch, so that it fails alone.
    func unstorableReason() -> String? {
        if let account, !Self.isValidAccount(account) {
            return "the account is not 1-256 bytes of UTF-8 without U+0000"
        }
        for transaction in transactions {
            guard LedgerLimits.isIdentifier(transaction.transactionID),
                LedgerLimits.isIdentifier(transaction.originalTransactionID),
                transaction.webOrderLineItemID.map(LedgerLimits.isIdentifier) ?? true
            else { return "a transaction's ids are not 1-64 letters, digits, '.', '-' or '_'" }
            guard LedgerLimits.isText(transaction.productID, maximum: LedgerLimits.maximumProductIDLength),
                LedgerLimits.isText(transaction.bundleID, maximum: LedgerLimits.maximumProductIDLength),
                LedgerLimits.isText(transaction.environment?.rawValue ?? "", maximum: LedgerLimits.maximumNameLength),
                LedgerLimits.isText(transaction.source.rawValue, maximum: LedgerLimits.maximumNameLength),
                transaction.appAccountToken.map({ LedgerLimits.isText($0, maximum: LedgerLimits.maximumTokenLength) })
                    ?? true
            else { return "a transaction's product id, bundle id, environment or token is outside the limits" }
        }
        for renewal in renewals where !LedgerLimits.isIdentifier(renewal.originalTransactionID) {
            return "a renewal info's original transaction id is outside the limits"
        }
        if let notification {
            guard LedgerLimits.isNotificationID(notification.id),
                LedgerLimits.isText(notification.notificationType, maximum: LedgerLimits.maximumNameLength),
                notification.subtype.map({ LedgerLimits.isText($0, maximum: LedgerLimits.maximumNameLength) }) ?? true,
                notification.unverifiedHints.map({ $0.utf8.count <= LedgerLimits.maximumHintsLength }) ?? true,
                notification.bundleID.map(LedgerLimits.isBundleID) ?? true,
                LedgerLimits.isText(notification.environment?.rawValue ?? "", maximum: LedgerLimits.maximumNameLength)
            else { return "the notification's id, type, hints, bundle id or environment are outside the limits" }
        }
        let audit = [endpoint, receiptSHA256, decidedBy.rawValue, reason?.description ?? ""]
        guard audit.allSatisfy({ LedgerLimits.isText($0, maximum: LedgerLimits.maximumTokenLength) }) else {
            return "the audit entry's endpoint, digest, reason or decider is outside the limits"
        }
        return nil
    }
}
