public import ReceiptModel

/// What one batch writes, decided by ``LedgerPlan`` from a ``LedgerSnapshot``: a store applies it in the
/// same transaction it read the snapshot in, and commits.
public struct LedgerChanges: Sendable {
    /// An original transaction id bound to an account.
    public struct Binding: Sendable, Hashable {
        public var originalTransactionID: String
        public var account: String
        public var time: ReceiptDate
    }

    /// Transactions the ledger had never seen (inserted; a primary-key violation fails the batch).
    public var inserts: [LedgerTransaction] = []
    /// Known transactions whose recorded facts changed (a cancellation, a kind, an expiry).
    public var updates: [LedgerTransaction] = []
    /// Known transactions seen again with nothing new: only their `lastSeen` moves, to ``touchTime``.
    public var touched: [String] = []
    /// The latest verification time of the batch.
    public var touchTime: ReceiptDate?
    /// New owners (a bound original transaction id is never rebound).
    public var bindings: [Binding] = []
    /// Renewal states to write (insert or replace), each newer by `signedDate` than what was held.
    public var renewals: [LedgerRenewal] = []
    /// Notifications seen for the first time.
    public var notifications: [LedgerNotification] = []
    /// App account tokens of transactions (transaction id → token), written once.
    public var accountTokens: [(transactionID: String, token: String)] = []
    /// One entry per verification, in order.
    public var audits: [AuditEntry] = []

    public init() {}

    /// Whether the batch changes what the ledger knows (new transactions, changed facts, new owners), as opposed
    /// to only recording that known transactions were seen again and appending audit entries.
    public var changesFacts: Bool {
        !inserts.isEmpty || !updates.isEmpty || !bindings.isEmpty || !renewals.isEmpty || !notifications.isEmpty
    }

    /// Whether the batch writes nothing but audit entries.
    public var onlyAudits: Bool { !changesFacts && touched.isEmpty }
}
