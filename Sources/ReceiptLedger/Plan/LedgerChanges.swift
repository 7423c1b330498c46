package import ReceiptModel

/// What one batch writes, decided by ``LedgerPlan`` from a ``LedgerSnapshot``: a store applies it in the
/// same transaction it read the snapshot in, and commits.
package struct LedgerChanges: Sendable {
    /// An original transaction id bound to an account.
    package struct Binding: Sendable, Hashable {
        package var originalTransactionID: String
        package var account: String
        package var time: ReceiptDate

        package init(originalTransactionID: String, account: String, time: ReceiptDate) {
            self.originalTransactionID = originalTransactionID
            self.account = account
            self.time = time
        }
    }

    /// Transactions the ledger had never seen (inserted; a primary-key violation fails the batch).
    package var inserts: [LedgerTransaction] = []
    /// Known transactions whose recorded facts changed (a cancellation, a kind, an expiry).
    package var updates: [LedgerTransaction] = []
    /// Known transactions seen again with nothing new: only their `lastSeen` moves, to ``touchTime``.
    package var touched: [String] = []
    /// The latest verification time of the batch.
    package var touchTime: ReceiptDate?
    /// New owners (a bound original transaction id is never rebound).
    package var bindings: [Binding] = []
    /// Renewal states to write (insert or replace), each newer by `signedDate` than what was held.
    package var renewals: [LedgerRenewal] = []
    /// Notifications seen for the first time.
    package var notifications: [LedgerNotification] = []
    /// App account tokens of transactions (transaction id → token), written once.
    package var accountTokens: [(transactionID: String, token: String)] = []
    /// One entry per verification, in order.
    package var audits: [AuditEntry] = []
    /// Receipts recorded whole for the first time (``LedgerReceiptKey``), with the time: remembered, not facts.
    package var receipts: [(key: String, time: ReceiptDate)] = []
    /// Events for the app's backend, in the order the facts were decided (``LedgerEvent``); empty unless the store
    /// records events (``LedgerStoreOptions/recordsEvents``).
    package var events: [LedgerEvent] = []

    package init() {}

    /// Whether the batch changes what the ledger knows (new transactions, changed facts, new owners), as opposed
    /// to only recording that known transactions were seen again and appending audit entries.
    package var changesFacts: Bool {
        !inserts.isEmpty || !updates.isEmpty || !bindings.isEmpty || !renewals.isEmpty || !notifications.isEmpty
    }

    /// Whether the batch writes nothing but audit entries.
    package var onlyAudits: Bool {
        !changesFacts && touched.isEmpty && accountTokens.isEmpty && receipts.isEmpty && events.isEmpty
    }
}
