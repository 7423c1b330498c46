public import ReceiptModel
public import ReceiptVerification

/// Where the ledger lives: one protocol, two stores (``SQLiteLedgerStore`` embedded, ``PostgresLedgerStore``
/// for replicas). Every guarantee rests on ``commit(_:)``: one durable transaction per batch, holding the
/// store's one writer lock from its first read to its commit, deciding with ``LedgerPlan``.
public protocol LedgerStore: Sendable {
    /// Records a batch of verifications in one transaction: reads the batch's keys under the writer lock,
    /// decides with ``LedgerPlan/decide(_:snapshot:)``, writes, commits durably, and only then returns.
    /// - Returns: one outcome per entry, in order.
    /// - Throws: ``LedgerError`` `ledger.unavailable`; then nothing of the batch was recorded.
    func commit(_ entries: [LedgerEntry]) async throws(LedgerError) -> [LedgerOutcome]

    /// The transaction with this id and the account its original transaction id is bound to, if any.
    func transaction(id: String) async throws(LedgerError) -> (LedgerTransaction, owner: String?)?

    /// Every transaction whose original transaction id is bound to `account`.
    func transactions(ownedBy account: String) async throws(LedgerError) -> [LedgerTransaction]

    /// The renewal states of every subscription bound to `account`.
    func renewals(ownedBy account: String) async throws(LedgerError) -> [LedgerRenewal]

    /// Every transaction and renewal state the ledger holds under `originalTransactionIDs`.
    func subscriptions(originalTransactionIDs: [String]) async throws(LedgerError) -> LedgerSubscriptions

    /// The greatest signed date among the V2 notifications the ledger holds about the app `bundleID` in
    /// `environment`: where a backfill of missed notifications starts. A notification recorded later but signed
    /// earlier does not lower it.
    /// - Returns: `nil` when the ledger holds none (notifications recorded before schema version 4 name no app, and
    ///   a `bundleID` outside ``LedgerLimits`` names none the ledger could hold).
    func latestNotificationSignedDate(
        bundleID: String, environment: ReceiptEnvironment
    ) async throws(LedgerError) -> ReceiptDate?

    /// Audit entries matching `query`, oldest first.
    func auditEntries(_ query: AuditQuery) async throws(LedgerError) -> [AuditEntry]

    /// Releases connections; the store is not used afterwards.
    func close() async
}
