public import ReceiptModel
public import ReceiptVerification

/// Where the ledger lives: one protocol, two stores in `ReceiptLedgerStores` (`SQLiteLedgerStore` embedded,
/// `PostgresLedgerStore` for replicas). Every guarantee rests on ``commit(_:)``: one durable transaction per
/// batch, holding the store's one writer lock from its first read to its commit, deciding with ``LedgerPlan``.
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

    /// Settles the attempts `owner` finished, then leases it the next events it may deliver: one round of a
    /// deliverer in one call, so that a round costs one write to the ledger, not one per event.
    ///
    /// - Settling: for each id in `settling`, how one attempt to deliver it ended (`attempts` + 1), releasing
    ///   `owner`'s lease. A settlement from an owner whose lease was taken over (or of an unknown id) is ignored: the
    ///   new owner's counts.
    /// - Claiming: up to `limit` events (0 claims none), each leased until `leaseUntil`: pending, due
    ///   (`nextAttemptAt <= now`), not leased to anyone whose lease is still running, and the first undelivered event
    ///   of its key (an earlier pending event of the same key, leased or not, holds the later ones back; a parked one
    ///   does not). Oldest first. Across replicas on one database, an event is leased to at most one at a time; a
    ///   replica that dies leaves its leases to run out.
    ///
    /// The settlements are committed before the claim reads (SQLite: both in one transaction), so a key whose event
    /// was just delivered offers its next one in the same call.
    /// - Throws: ``LedgerError`` `ledger.invalid_entry` for an `owner` outside ``LedgerLimits`` when `limit` > 0 (a
    ///   settlement from such an owner names no lease and is ignored); `ledger.unavailable`, and then nothing of the
    ///   call was written (SQLite) or the settlements may have been (PostgreSQL; settling again changes nothing).
    func settleAndClaimEvents(
        settling: [String: LedgerEventSettlement], owner: String, now: ReceiptDate, leaseUntil: ReceiptDate, limit: Int
    ) async throws(LedgerError) -> [LedgerEvent]

    /// Events matching `query`, in commit order (`webhooks list`).
    func events(_ query: LedgerEventQuery) async throws(LedgerError) -> [LedgerEvent]

    /// Queues events again for delivery, due now, their maximum age counted from `now` (`webhooks replay`): the
    /// events with these ids, or with `ids` nil every parked one.
    /// - Returns: how many were queued.
    func requeueEvents(ids: [String]?, now: ReceiptDate) async throws(LedgerError) -> Int

    /// How many events are pending and when the oldest pending one was created (`/metrics`).
    func pendingEvents() async throws(LedgerError) -> (count: Int, oldest: ReceiptDate?)

    /// Releases connections; the store is not used afterwards.
    func close() async

    /// Whether replicas share this ledger (several servers on one PostgreSQL database): then it may hold
    /// subscription state this process never recorded, and ``Ledger`` consults it for every valid subscription
    /// receipt. `false` for the embedded SQLite store, which the server asks at start whether it holds any.
    /// `true` unless a store says otherwise.
    var isShared: Bool { get }
}

extension LedgerStore {
    /// Shared unless the store says otherwise: the safe answer (the ledger then reads subscription state back).
    public var isShared: Bool { true }

    /// Leases to `owner` up to `limit` events it may deliver now, each until `leaseUntil`
    /// (``settleAndClaimEvents(settling:owner:now:leaseUntil:limit:)`` settling nothing).
    public func claimEvents(owner: String, now: ReceiptDate, leaseUntil: ReceiptDate, limit: Int)
        async throws(LedgerError) -> [LedgerEvent]
    {
        try await settleAndClaimEvents(settling: [:], owner: owner, now: now, leaseUntil: leaseUntil, limit: limit)
    }

    /// Records how one attempt to deliver event `id` ended and releases `owner`'s lease
    /// (``settleAndClaimEvents(settling:owner:now:leaseUntil:limit:)`` claiming nothing).
    public func settleEvent(id: String, owner: String, _ settlement: LedgerEventSettlement) async throws(LedgerError) {
        _ = try await settleAndClaimEvents(
            settling: [id: settlement], owner: owner, now: settlement.time, leaseUntil: settlement.time, limit: 0)
    }
}
