/// What the ledger answered for one verification, once its write is durable.
public struct LedgerOutcome: Sendable, Hashable {
    /// Transaction ids the ledger had never seen before this verification: each is reported new exactly once,
    /// ever, across every replica on the ledger.
    public var newTransactionIDs: [String]
    /// Transaction ids the ledger already held.
    public var knownTransactionIDs: [String]
    /// Original transaction ids bound to another account than the one the verification named.
    public var conflicts: [LedgerConflict]
    /// `true` when ``ConflictPolicy/reject`` refused the verification for its conflicts (nothing was recorded
    /// but the audit entry).
    public var isRejected: Bool
    /// `true` when the entry is a notification the ledger had already recorded: nothing of it was applied again.
    public var isDuplicateNotification = false
    /// Renewal infos not applied because the ledger held one Apple signed later.
    public var staleRenewals = 0
    /// How many events (``LedgerEvent``) the verification recorded; always 0 unless the store records events.
    public var recordedEvents = 0
    /// What the ledger holds under the entry's ``LedgerEntry/readsSubscriptions``, as this commit left it; `nil`
    /// when the entry asked for none.
    public var subscriptions: LedgerSubscriptions?
    /// What became of the entry's receipt key, for ``Ledger``'s memory of known keys.
    package var receiptKey = ReceiptKeyState()

    /// What became of an entry's receipt key (``LedgerReceiptKey``). Not part of the answer: two outcomes that
    /// answer alike are equal whatever their states.
    package struct ReceiptKeyState: Sendable, Hashable {
        /// The ledger knows the key now: it answered from it, or recorded the receipt whole and remembered it.
        package var known = false
        /// The entry came without its transactions (``LedgerEntry/answersFromKeyOnly``) and the ledger does not know
        /// its key: nothing of it was written, and it must be recorded again with them.
        package var missing = false

        package static func == (lhs: Self, rhs: Self) -> Bool { true }
        package func hash(into hasher: inout Hasher) {}
    }

    public init(
        newTransactionIDs: [String] = [], knownTransactionIDs: [String] = [], conflicts: [LedgerConflict] = [],
        isRejected: Bool = false, isDuplicateNotification: Bool = false, staleRenewals: Int = 0
    ) {
        self.isDuplicateNotification = isDuplicateNotification
        self.staleRenewals = staleRenewals
        self.newTransactionIDs = newTransactionIDs
        self.knownTransactionIDs = knownTransactionIDs
        self.conflicts = conflicts
        self.isRejected = isRejected
    }
}
