/// How a store is opened: its waits, and whether it may write.
public struct LedgerStoreOptions: Sendable, Hashable {
    /// SQLite: how long a write waits for another connection's lock before it fails (`ledger.unavailable`).
    public var busyTimeout: Duration
    /// PostgreSQL: the longest one call (a batch's whole transaction, a read, the migration) may take.
    public var deadline: Duration
    /// Opens for reading only (the audit command): no migration, no lock taken; the schema must exist.
    public var readOnly: Bool

    public init(busyTimeout: Duration = .seconds(5), deadline: Duration = .seconds(10), readOnly: Bool = false) {
        self.busyTimeout = busyTimeout
        self.deadline = deadline
        self.readOnly = readOnly
    }
}
