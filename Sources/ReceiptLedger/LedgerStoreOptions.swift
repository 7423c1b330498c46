/// How a store is opened: its waits, and whether it may write.
public struct LedgerStoreOptions: Sendable, Hashable {
    /// SQLite: how long a write waits for another connection's lock before it fails (`ledger.unavailable`).
    public var busyTimeout: Duration
    /// PostgreSQL: the longest one call (a batch's whole transaction, a read, the migration) may take.
    public var deadline: Duration
    /// Sync the WAL to disk on every commit, not only on commits that change what the ledger knows (SQLite:
    /// `synchronous = FULL` throughout, see `SQLiteLedgerStore`; PostgreSQL: `synchronous_commit` on for batches of
    /// repeat sightings too, see `PostgresLedgerStore`). Costs a flush per batch of repeat verifications; keeps
    /// their audit entries through a power loss or a crash of the database server.
    public var syncEveryCommit: Bool
    /// Opens for reading only (the audit command): no migration, no lock taken; the schema must exist.
    public var readOnly: Bool
    /// Writes events for the app's backend with the facts that cause them (``LedgerEvent``): on while a webhook URL
    /// is configured.
    public var recordsEvents: Bool

    public init(
        busyTimeout: Duration = .seconds(5), deadline: Duration = .seconds(10), syncEveryCommit: Bool = false,
        readOnly: Bool = false, recordsEvents: Bool = false
    ) {
        self.busyTimeout = busyTimeout
        self.deadline = deadline
        self.syncEveryCommit = syncEveryCommit
        self.readOnly = readOnly
        self.recordsEvents = recordsEvents
    }
}
