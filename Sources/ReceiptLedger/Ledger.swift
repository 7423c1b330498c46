public import ReceiptModel
public import ReceiptVerification
import Synchronization

/// The ledger as a backend uses it: records verifications (group-committed, exactly once per transaction
/// id), answers what a transaction is and what an account is entitled to, and reads the audit trail.
///
/// ```swift
/// let ledger = Ledger(store: try SQLiteLedgerStore(path: "receipt-ledger.sqlite"))   // import ReceiptLedgerStores
/// // An entry from a verdict: `LedgerEntry(verification:…)` in ReceiptIntake (which computes the audit digest).
/// let outcome = try await ledger.record(try LedgerEntry(verification: result, received: body, endpoint: "my-app",
///     account: userID, time: now, catalogue: ledger.catalogue, onConflict: ledger.onConflict))
/// for id in outcome.newTransactionIDs { credit(userID, id) }   // each id is new once, ever
/// ```
public final class Ledger: Sendable {
    public let store: any LedgerStore
    /// The operator's product kinds.
    public let catalogue: ProductCatalogue
    /// What a verification naming another account than a purchase's owner gets.
    public let onConflict: ConflictPolicy
    private let group: GroupCommit
    /// Receipt keys seen known (``record(_:receiptKey:derive:)``).
    private let knownReceipts = KnownReceiptKeys()
    /// ``ProductCatalogue/fingerprint`` of ``catalogue``, worked out once.
    package let catalogueFingerprint: String
    private let subscriptionState: Atomic<Bool>
    /// Told after each recording that wrote events (``whenEventsRecorded(_:)``).
    private let eventsRecorded = Mutex<(@Sendable () -> Void)?>(nil)

    /// The most verifications committed in one transaction.
    public static let defaultMaximumBatch = 256

    public init(
        store: any LedgerStore, catalogue: ProductCatalogue = ProductCatalogue(), onConflict: ConflictPolicy = .report,
        maximumBatch: Int = Ledger.defaultMaximumBatch
    ) {
        self.store = store
        self.catalogue = catalogue
        catalogueFingerprint = catalogue.fingerprint
        self.onConflict = onConflict
        group = GroupCommit(store: store, maximumBatch: maximumBatch)
        subscriptionState = Atomic(store.isShared)
    }

    /// Whether the ledger may hold subscription state a receipt does not show (renewal info, notifications, JWS
    /// transactions): then `/verifyReceipt` consults it for every valid subscription receipt, not only for one
    /// whose subscriptions have lapsed. Always for a shared store (another replica may have recorded some);
    /// for SQLite, once this process recorded any, or found any when it opened (``noteSubscriptionState()``).
    package var mayHoldSubscriptionState: Bool { subscriptionState.load(ordering: .relaxed) }

    /// Records that the store holds subscription state (the server calls it at start when the store says so).
    package func noteSubscriptionState() { subscriptionState.store(true, ordering: .relaxed) }

    /// Calls `body` after each recording that wrote events, once it is durable (the webhook deliverer's wake-up, so
    /// that an event leaves at once rather than at the next poll). It must return quickly; a later call replaces it.
    package func whenEventsRecorded(_ body: @escaping @Sendable () -> Void) {
        eventsRecorded.withLock { $0 = body }
    }

    /// Records one verification; returns once it is durable, with what was new.
    /// - Throws: ``LedgerError`` `ledger.unavailable`: nothing of it was recorded, and nothing may be credited;
    ///   `ledger.invalid_entry` for an entry holding a value outside ``LedgerLimits``, refused before it could
    ///   join (and fail) a batch of other verifications.
    ///
    /// Runs on its caller's executor (`nonisolated(nonsending)`, as the intake that calls it): the entry's checks and
    /// its receipt key's hash there, then it waits for its batch's commit and resumes there.
    nonisolated(nonsending) public func record(_ entry: LedgerEntry) async throws(LedgerError) -> LedgerOutcome {
        // Hashed here, in parallel across requests, not by the batch's one writer.
        var entry = entry
        entry.preparedReceiptKey = .some(LedgerReceiptKey.key(for: entry))
        return try await commit(entry)
    }

    /// Records one verification of a receipt whose transactions `derive` makes from the receipt alone, under
    /// `receiptKey` (``LedgerReceiptKey/key(receiptSHA256:derivation:account:)``). A sighting of a receipt this
    /// process has seen the ledger know is answered from the key, with the receipt's transaction ids as known and
    /// its audit entry as the only write, and `derive` is not called: the ledger's cost does not grow with what it
    /// already knows. Otherwise, as ``record(_:)`` with the transactions `derive` makes (and the key remembered
    /// when the ledger knows it after).
    nonisolated(nonsending) package func record(
        _ entry: LedgerEntry, receiptKey: String, derive: () -> [LedgerTransaction]
    ) async throws(LedgerError) -> LedgerOutcome {
        if LedgerReceiptKey.mayHaveKey(entry), let ids = knownReceipts.transactionIDs(for: receiptKey) {
            var answered = entry
            answered.transactions = []
            answered.preparedReceiptKey = .some(receiptKey)
            answered.answersFromKeyOnly = true
            var outcome = try await commit(answered)
            // A ledger that does not know the key (it never forgets one) wrote nothing: recorded in full below.
            if !outcome.receiptKey.missing {
                outcome.knownTransactionIDs = ids
                return outcome
            }
        }
        var entry = entry
        entry.transactions = derive()
        let keyed =
            LedgerReceiptKey.mayHaveKey(entry) && !entry.transactions.isEmpty
            && entry.transactions.allSatisfy { $0.source == .receipt }
        entry.preparedReceiptKey = .some(keyed ? receiptKey : nil)
        let outcome = try await commit(entry)
        if keyed, outcome.receiptKey.known {
            knownReceipts.remember(
                receiptKey, transactionIDs: LedgerPlan.unique(entry.transactions).map(\.transactionID))
        }
        return outcome
    }

    /// Records `entry`, its receipt key prepared.
    nonisolated(nonsending) private func commit(_ entry: LedgerEntry) async throws(LedgerError) -> LedgerOutcome {
        if let reason = entry.unstorableReason() { throw LedgerError(.invalidEntry, reason) }
        let outcome = try await group.record(entry)
        if outcome.recordedEvents > 0, let told = eventsRecorded.withLock({ $0 }) { told() }
        if !entry.renewals.isEmpty || entry.notification != nil
            || entry.transactions.contains(where: { LedgerSource.beyondReceipts.contains($0.source) })
        {
            noteSubscriptionState()
        }
        return outcome
    }

    /// The transaction with this id and its purchase's owner, if the ledger holds it.
    public func transaction(id: String) async throws(LedgerError) -> (LedgerTransaction, owner: String?)? {
        try await store.transaction(id: id)
    }

    /// What `account` is entitled to at `instant` (`Entitlements`).
    public func entitlements(account: String, at instant: ReceiptDate) async throws(LedgerError) -> [Entitlement] {
        Entitlements.compute(
            try await store.transactions(ownedBy: account), renewals: try await store.renewals(ownedBy: account),
            at: instant)
    }

    /// Every transaction and renewal state the ledger holds under `originalTransactionIDs`.
    public func subscriptions(originalTransactionIDs: [String]) async throws(LedgerError) -> LedgerSubscriptions {
        try await store.subscriptions(originalTransactionIDs: originalTransactionIDs)
    }

    /// The greatest signed date among the V2 notifications recorded about the app `bundleID` in `environment`, or
    /// `nil` when none is: where a server backfills the notifications it missed, for each app and environment
    /// (``LedgerStore/latestNotificationSignedDate(bundleID:environment:)``).
    /// - Parameters:
    ///   - bundleID: the app's bundle id, as Apple signs it in its notifications.
    ///   - environment: `Production` or `Sandbox`: each has its own notifications.
    public func latestNotificationSignedDate(
        bundleID: String, environment: ReceiptEnvironment
    ) async throws(LedgerError) -> ReceiptDate? {
        try await store.latestNotificationSignedDate(bundleID: bundleID, environment: environment)
    }

    /// Audit entries matching `query`, oldest first.
    public func auditEntries(_ query: AuditQuery) async throws(LedgerError) -> [AuditEntry] {
        try await store.auditEntries(query)
    }

    public func close() async { await store.close() }
}
