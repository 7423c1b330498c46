import BER
import GRDB
import Glibc
@_spi(Fuzzing) public import ReceiptLedger
public import ReceiptModel
public import ReceiptVerification
import Synchronization

/// The embedded ledger: one SQLite database file in WAL mode, through GRDB.
///
/// - Writes: GRDB's one writer connection, each batch in a `BEGIN IMMEDIATE` transaction (SQLite's write lock,
///   held from the batch's first read to its commit).
/// - Durability: a batch that changes what the ledger knows (a new transaction, a changed fact, a new owner)
///   commits with `synchronous = FULL`: the WAL is on disk before the commit returns, so what it reports new
///   survives `kill -9` and power loss. A batch that only sees known transactions again (their last-seen time and
///   the audit entries) commits with `NORMAL`: in the operating system's cache when the commit returns, so it
///   survives `kill -9`, and on disk with the next FULL commit or checkpoint. ``LedgerStoreOptions/syncEveryCommit``
///   makes every commit FULL.
/// - Reads (`/v1/transactions`, entitlements, the audit command) use GRDB's reader connections and never block
///   the writer.
/// - The schema is created and migrated when the store opens, in one immediate transaction.
/// - Another process holding the database's lock longer than ``LedgerStoreOptions/busyTimeout`` makes a batch fail with
///   `ledger.unavailable`; nothing of it is written.
public final class SQLiteLedgerStore: LedgerStore {
    let pool: DatabasePool
    public let path: String
    private let syncEveryCommit: Bool
    /// Whether commits write events (``LedgerStoreOptions/recordsEvents``).
    private let recordsEvents: Bool
    /// The writer connection's `synchronous` setting: FULL (true) or NORMAL. Only the writer's queue reads and
    /// sets it; the mutex makes that visible to the compiler.
    private let synchronousFull = Mutex(true)

    /// Opens (creating when missing) and migrates the ledger at `path`; read-only, only opens an existing one.
    /// - Throws: ``LedgerError`` `ledger.unavailable` or `ledger.migration_failed`.
    public init(path: String, options: LedgerStoreOptions = LedgerStoreOptions()) throws(LedgerError) {
        self.path = path
        syncEveryCommit = options.syncEveryCommit
        recordsEvents = options.recordsEvents
        var configuration = Configuration()
        let wait = options.busyTimeout.components
        configuration.busyMode = .timeout(Double(wait.seconds) + Double(wait.attoseconds) / 1e18)
        configuration.readonly = options.readOnly
        do {
            pool = try Self.openPool(path: path, configuration: configuration, patience: options.busyTimeout)
            if options.readOnly {
                _ = try pool.read { try Int.fetchOne($0, sql: "SELECT MAX(version) FROM ledger_schema") }
                return
            }
            // After the pool's own set-up, which chooses NORMAL for WAL (durable against a crash of the process,
            // not of the machine). The writer is the only connection that commits, so FULL there makes every
            // commit durable: the WAL is synced before the commit returns.
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        } catch {
            throw LedgerError(.unavailable, "cannot open the SQLite ledger at \(path): \(Self.describe(error))")
        }
        try migrate()
    }

    /// Opens the pool, trying again while another connection's set-up holds the database (replicas or stores
    /// opening one new file together: switching it to WAL answers SQLITE_BUSY at once rather than waiting), for at
    /// most `patience`.
    private static func openPool(path: String, configuration: Configuration, patience: Duration) throws
        -> DatabasePool
    {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && clock.now < deadline {
                usleep(20_000)  // start-up only: the store is not serving yet
            }
        }
    }

    /// Not shared by replicas: the server asks at start whether it holds subscription state
    /// (``holdsSubscriptionState()``).
    public var isShared: Bool { false }

    public func close() async {
        try? pool.close()
    }

    // MARK: - Migrations

    private func migrate() throws(LedgerError) {
        do {
            try pool.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    try db.execute(sql: LedgerSchema.versionTable(.sqlite))
                    let applied = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(version), 0) FROM ledger_schema") ?? 0
                    let migrations = LedgerSchema.migrations(.sqlite)
                    guard applied <= migrations.count else {
                        throw LedgerError(
                            .migrationFailed,
                            "the ledger's schema is version \(applied); this build knows \(migrations.count)")
                    }
                    for (index, statements) in migrations.enumerated().dropFirst(applied) {
                        for statement in statements { try db.execute(sql: statement) }
                        try db.execute(
                            sql:
                                "INSERT INTO ledger_schema (version, applied_ms) VALUES (?, \(LedgerSchema.databaseNow(.sqlite)))",
                            arguments: [index + 1])
                    }
                    return .commit
                }
            }
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError(.migrationFailed, "cannot migrate the SQLite ledger: \(Self.describe(error))")
        }
    }

    // MARK: - Commit

    public func commit(_ entries: [LedgerEntry]) async throws(LedgerError) -> [LedgerOutcome] {
        do {
            return try await pool.writeWithoutTransaction { db in try self.commit(entries, db) }
        } catch {
            throw Self.recordingFailure(error)
        }
    }

    /// One batch in one transaction on the writer connection `db`.
    private func commit(_ entries: [LedgerEntry], _ db: Database) throws(LedgerError) -> [LedgerOutcome] {
        // SQLite fixes a commit's sync level before its transaction begins, and what a batch changes is known
        // only inside it: a batch that changes facts under NORMAL is rolled back and run again under FULL (before
        // anything of it is written). A batch that changes nothing commits at the level it found and leaves
        // NORMAL for the next.
        do {
            while true {
                let full = synchronousFull.withLock { $0 }
                var outcomes: [LedgerOutcome]?
                var needsFull = syncEveryCommit
                try Self.immediateTransaction(db) {
                    // Receipts recorded whole before are answered from their key: their transactions are not read.
                    let receiptKeys = LedgerPlan.receiptKeys(of: entries)
                    let knownReceipts = try Self.knownReceipts(db, receiptKeys)
                    let keys = LedgerPlan.keys(
                        of: entries, recordsEvents: recordsEvents,
                        answered: receiptKeys.map { $0.map(knownReceipts.contains) ?? false })
                    var snapshot = try Self.snapshot(db, keys)
                    snapshot.receiptKeys = receiptKeys
                    snapshot.knownReceipts = knownReceipts
                    let (changes, decided) = LedgerPlan.decide(
                        entries, snapshot: snapshot, recordsEvents: recordsEvents)
                    // An event is a promise to the app's backend: it survives a power loss as the facts do.
                    needsFull = needsFull || changes.changesFacts || !changes.events.isEmpty
                    if needsFull && !full { return false }
                    try Self.apply(changes, db)
                    outcomes = decided
                    return true
                }
                if needsFull != full {
                    try db.execute(sql: needsFull ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
                    synchronousFull.withLock { $0 = needsFull }
                }
                if let outcomes { return outcomes }
            }
        } catch {
            throw Self.recordingFailure(error)
        }
    }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction, committed when it returns true, else rolled back (and rolled
    /// back when anything throws). What GRDB's `inTransaction` does, with the `BEGIN` and `COMMIT` statements
    /// prepared once and cached rather than prepared for every batch.
    private static func immediateTransaction(_ db: Database, _ body: () throws -> Bool) throws {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            guard try body() else { return try db.rollback() }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            if db.isInsideTransaction { try? db.rollback() }
            throw error
        }
    }

    private static func recordingFailure(_ error: any Error) -> LedgerError {
        error as? LedgerError ?? LedgerError(.unavailable, "the SQLite ledger could not record: \(describe(error))")
    }

    /// The keys among `receiptKeys` the ledger remembers (one indexed lookup per distinct key of the batch).
    private static func knownReceipts(_ db: Database, _ receiptKeys: [String?]) throws -> Set<String> {
        let wanted = LedgerPlan.distinctKeys(receiptKeys)
        guard !wanted.isEmpty else { return [] }
        return Set(
            try String.fetchAll(
                db.cachedStatement(sql: SQLiteStatements.knownReceipts),
                arguments: [LedgerColumnJSON.column(ids: wanted)]))
    }

    private static func snapshot(_ db: Database, _ keys: LedgerKeys) throws -> LedgerSnapshot {
        var snapshot = LedgerSnapshot()
        if !keys.transactionIDs.isEmpty || !keys.subscriptionIDs.isEmpty {
            let transactionIDs = LedgerColumnJSON.column(ids: keys.transactionIDs)
            let records =
                keys.subscriptionIDs.isEmpty
                ? try TransactionRecord.fetchCursor(
                    db.cachedStatement(sql: SQLiteStatements.transactionsByID), arguments: [transactionIDs])
                : try TransactionRecord.fetchCursor(
                    db.cachedStatement(sql: SQLiteStatements.transactionsByIDOrOriginal),
                    arguments: [transactionIDs, LedgerColumnJSON.column(ids: keys.subscriptionIDs)])
            while let record = try records.next() {
                snapshot.transactions[record.transaction.transactionID] = record.transaction
            }
        }
        if !keys.ownerIDs.isEmpty {
            let records = try OwnerRecord.fetchCursor(
                db.cachedStatement(sql: SQLiteStatements.ownersByOriginal),
                arguments: [LedgerColumnJSON.column(ids: keys.ownerIDs)])
            while let record = try records.next() {
                snapshot.owners[record.binding.originalTransactionID] = record.binding.account
            }
        }
        for renewal in keys.renewalIDs.isEmpty ? [] : try renewals(db, originalTransactionIDs: keys.renewalIDs) {
            snapshot.renewals[renewal.originalTransactionID] = renewal
        }
        if !keys.notificationIDs.isEmpty {
            let held = try String.fetchAll(
                db.cachedStatement(sql: SQLiteStatements.notificationIDs),
                arguments: [LedgerColumnJSON.column(ids: keys.notificationIDs)])
            snapshot.notificationIDs = Set(held)
        }
        return snapshot
    }

    private static func apply(_ changes: LedgerChanges, _ db: Database) throws {
        if !changes.inserts.isEmpty {
            let insert = try db.cachedStatement(sql: SQLiteStatements.insertTransaction)
            for transaction in changes.inserts {
                try insert.execute(arguments: SQLiteStatements.arguments(TransactionRecord(transaction)))
            }
        }
        if !changes.updates.isEmpty {
            let update = try db.cachedStatement(sql: SQLiteStatements.updateTransaction)
            for transaction in changes.updates {
                try update.execute(arguments: SQLiteStatements.arguments(TransactionRecord(transaction)))
            }
        }
        if let time = changes.touchTime, !changes.touched.isEmpty {
            try db.cachedStatement(sql: SQLiteStatements.touchTransactions).execute(arguments: [
                time.millisecondsSince1970, LedgerColumnJSON.column(ids: changes.touched),
            ])
        }
        if !changes.bindings.isEmpty {
            let bind = try db.cachedStatement(sql: SQLiteStatements.insertOwner)
            for binding in changes.bindings {
                try bind.execute(arguments: SQLiteStatements.arguments(OwnerRecord(binding)))
            }
        }
        if !changes.renewals.isEmpty {
            let upsert = try db.cachedStatement(sql: SQLiteStatements.replaceRenewal)
            for renewal in changes.renewals {
                try upsert.execute(arguments: SQLiteStatements.arguments(RenewalRecord(renewal)))
            }
        }
        if !changes.notifications.isEmpty {
            let insert = try db.cachedStatement(sql: SQLiteStatements.insertNotification)
            for notification in changes.notifications {
                try insert.execute(arguments: SQLiteStatements.arguments(NotificationRecord(notification)))
            }
        }
        if !changes.accountTokens.isEmpty {
            let insert = try db.cachedStatement(sql: SQLiteStatements.insertToken)
            for (id, token) in changes.accountTokens {
                try insert.execute(
                    arguments: SQLiteStatements.arguments(AccountTokenRecord(transactionID: id, token: token)))
            }
        }
        if !changes.receipts.isEmpty {
            let remember = try db.cachedStatement(sql: SQLiteStatements.insertReceipt)
            for (key, time) in changes.receipts {
                try remember.execute(arguments: [key, time.millisecondsSince1970])
            }
        }
        try appendAudits(changes.audits, db)
        if !changes.events.isEmpty {
            // In the batch's order: the database numbers them as they come (commit order).
            let insert = try db.cachedStatement(sql: SQLiteStatements.insertEvent)
            for event in changes.events {
                try insert.execute(arguments: SQLiteStatements.arguments(EventRecord(event)))
            }
        }
    }

    /// The batch's audit entries, one insert each, bound with SQLite's own calls (``SQLiteRawStatement``): this
    /// is the one statement a batch runs per verification.
    private static func appendAudits(_ audits: [AuditEntry], _ db: Database) throws {
        let audit = SQLiteRawStatement(try db.cachedStatement(sql: SQLiteStatements.insertAudit), in: db)
        let columns = AuditRecord.Column.inserted
        for entry in audits {
            let record = AuditRecord(entry)
            for (offset, column) in columns.enumerated() { try audit.bind(record.value(column), at: Int32(offset + 1)) }
            try audit.run()
        }
    }

    /// The renewal states held for `originalTransactionIDs`.
    private static func renewals(_ db: Database, originalTransactionIDs: [String]) throws -> [LedgerRenewal] {
        try RenewalRecord.fetchAll(
            db.cachedStatement(sql: SQLiteStatements.renewalsByOriginal),
            arguments: [LedgerColumnJSON.column(ids: originalTransactionIDs)]
        ).map(\.renewal)
    }

    // MARK: - Events

    public func settleAndClaimEvents(
        settling: [String: LedgerEventSettlement], owner: String, now: ReceiptDate, leaseUntil: ReceiptDate, limit: Int
    ) async throws(LedgerError) -> [LedgerEvent] {
        guard try LedgerLimits.admitsLeaseOwner(owner, claiming: limit) else { return [] }
        let count = min(limit, LedgerLimits.maximumEventClaim)
        guard count > 0 || !settling.isEmpty else { return [] }
        let settlements = settling.map { id, settlement in
            var arguments: StatementArguments = [settlement.time.millisecondsSince1970, id, owner]
            if let error = settlement.error { arguments += [LedgerLimits.eventError(error)] }
            return (id, settlement, arguments)
        }
        // On the writer, in one immediate transaction: deliverers of this process and of others sharing the file
        // settle and claim one at a time, so an event is leased to one of them at most.
        return try await writeEvents { db in
            // An owner whose lease was taken over (or an unknown id) matches no row: the settlement is ignored.
            for (id, settlement, arguments) in settlements {
                try db.cachedStatement(sql: Self.statement(settling: settlement)).execute(arguments: arguments)
                // A retry that was this owner's to settle holds its key's later events back until it is due.
                if case .retry(let at, _) = settlement, db.changesCount > 0 {
                    try db.cachedStatement(sql: SQLiteStatements.holdBackLaterEvents).execute(
                        arguments: [at.millisecondsSince1970, id])
                }
            }
            guard count > 0 else { return [] }
            let events = try EventRecord.fetchAll(
                db.cachedStatement(sql: SQLiteStatements.claimableEvents),
                arguments: [now.millisecondsSince1970, count]
            ).map(\.event)
            guard !events.isEmpty else { return [] }
            try db.cachedStatement(sql: SQLiteStatements.leaseEvents).execute(arguments: [
                owner, leaseUntil.millisecondsSince1970, LedgerColumnJSON.column(ids: events.map(\.id)),
            ])
            return events
        }
    }

    /// The statement of a settlement.
    private static func statement(settling settlement: LedgerEventSettlement) -> String {
        switch settlement {
        case .delivered: SQLiteStatements.settleDelivered
        case .retry: SQLiteStatements.settleRetry
        case .failed: SQLiteStatements.settleFailed
        }
    }

    public func events(_ query: LedgerEventQuery) async throws(LedgerError) -> [LedgerEvent] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if query.onlyFailed { conditions.append(SQLiteStatements.eventsFailed) }
        if let since = query.since {
            conditions.append(SQLiteStatements.eventsSince)
            arguments += [since.millisecondsSince1970]
        }
        var sql = SQLiteStatements.events
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += SQLiteStatements.eventOrder
        arguments += [max(0, query.limit)]
        let statement = sql
        let bound = arguments
        return try await read { db in
            try EventRecord.fetchAll(db, sql: statement, arguments: bound).map(\.event)
        }
    }

    public func requeueEvents(ids: [String]?, now: ReceiptDate) async throws(LedgerError) -> Int {
        // An id outside the limits names no event the ledger wrote.
        let wanted = ids.map { $0.filter { LedgerLimits.isText($0, maximum: LedgerLimits.maximumTokenLength) } }
        if let wanted, wanted.isEmpty { return 0 }
        return try await writeEvents { db in
            if let wanted {
                try db.cachedStatement(sql: SQLiteStatements.requeueIDs).execute(arguments: [
                    now.millisecondsSince1970, LedgerColumnJSON.column(ids: wanted),
                ])
            } else {
                try db.cachedStatement(sql: SQLiteStatements.requeueFailed).execute(arguments: [
                    now.millisecondsSince1970
                ])
            }
            return db.changesCount
        }
    }

    public func pendingEvents() async throws(LedgerError) -> (count: Int, oldest: ReceiptDate?) {
        let (count, oldest) = try await read { db -> (Int64, Int64?) in
            guard let row = try Row.fetchOne(db, sql: SQLiteStatements.pendingEvents) else { return (0, nil) }
            let count: Int64? = row[0]
            let oldest: Int64? = row[1]
            return (count ?? 0, oldest)
        }
        return (Int(clamping: count), TransactionRecord.date(oldest))
    }

    /// Runs `body` on the writer in one immediate transaction, committed when it returns.
    private func writeEvents<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T)
        async throws(LedgerError) -> T
    {
        do {
            return try await pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                guard let result else { throw LedgerError(.unavailable, "the events' transaction returned nothing") }
                return result
            }
        } catch {
            throw error as? LedgerError
                ?? LedgerError(.unavailable, "the SQLite ledger could not update its events: \(Self.describe(error))")
        }
    }

    // MARK: - Reads

    public func transaction(id: String) async throws(LedgerError) -> (LedgerTransaction, owner: String?)? {
        try await read { db -> (LedgerTransaction, owner: String?)? in
            guard
                var transaction = try TransactionRecord.fetchOne(
                    db, sql: SQLiteStatements.transactionByID, arguments: [id])?.transaction
            else { return nil }
            transaction.appAccountToken =
                try AccountTokenRecord.fetchOne(db, sql: SQLiteStatements.tokenOf, arguments: [id])?.token
            let owner = try OwnerRecord.fetchOne(
                db, sql: SQLiteStatements.ownerOf, arguments: [transaction.originalTransactionID])
            return (transaction, owner?.binding.account)
        }
    }

    public func transactions(ownedBy account: String) async throws(LedgerError) -> [LedgerTransaction] {
        try await read { db in
            try TransactionRecord.fetchAll(db, sql: SQLiteStatements.transactionsOwnedBy, arguments: [account])
                .map(\.transaction)
        }
    }

    /// Whether the ledger holds any subscription state a receipt cannot show (renewal info, notifications).
    package func holdsSubscriptionState() async throws(LedgerError) -> Bool {
        try await read { db in try Bool.fetchOne(db, sql: SQLiteStatements.holdsSubscriptionState) ?? true }
    }

    public func renewals(ownedBy account: String) async throws(LedgerError) -> [LedgerRenewal] {
        try await read { db in
            try RenewalRecord.fetchAll(db, sql: SQLiteStatements.renewalsOwnedBy, arguments: [account]).map(\.renewal)
        }
    }

    public func subscriptions(originalTransactionIDs: [String]) async throws(LedgerError) -> LedgerSubscriptions {
        guard !originalTransactionIDs.isEmpty else { return LedgerSubscriptions() }
        return try await read { db in
            let transactions = try TransactionRecord.fetchAll(
                db, sql: SQLiteStatements.transactionsByOriginal,
                arguments: [LedgerColumnJSON.column(ids: originalTransactionIDs)]
            ).map(\.transaction)
            return LedgerSubscriptions(
                transactions: transactions,
                renewals: try Self.renewals(db, originalTransactionIDs: originalTransactionIDs))
        }
    }

    public func latestNotificationSignedDate(
        bundleID: String, environment: ReceiptEnvironment
    ) async throws(LedgerError) -> ReceiptDate? {
        // A bundle id the ledger would refuse to record names no notification it holds.
        guard LedgerLimits.isBundleID(bundleID) else { return nil }
        let milliseconds = try await read { db in
            try Int64.fetchOne(
                db, sql: SQLiteStatements.latestNotificationSignedDate,
                arguments: [bundleID, EnvironmentColumn.text(environment)])
        }
        return TransactionRecord.date(milliseconds)
    }

    public func auditEntries(_ query: AuditQuery) async throws(LedgerError) -> [AuditEntry] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let since = query.since {
            conditions.append(SQLiteStatements.auditSince)
            arguments += [since.millisecondsSince1970]
        }
        if let after = query.afterSequence {
            conditions.append(SQLiteStatements.auditAfter)
            arguments += [after]
        }
        if let account = query.account {
            conditions.append(SQLiteStatements.auditAccount)
            arguments += [account]
        }
        if let id = query.transactionID {
            conditions.append(SQLiteStatements.auditTransaction)
            arguments += [id, id]
        }
        // The query's filters choose the statement (its WHERE clause), from fragments written once.
        var sql = SQLiteStatements.audits
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += SQLiteStatements.auditOrder
        if let limit = query.limit {
            sql += " LIMIT ?"
            arguments += [max(0, limit)]
        }
        let statement = sql
        let bound = arguments
        return try await read { db in
            try AuditRecord.fetchAll(db, sql: statement, arguments: bound).map(\.entry)
        }
    }

    private func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(LedgerError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw LedgerError(.unavailable, "the SQLite ledger could not be read: \(Self.describe(error))")
        }
    }

    /// A driver error in words, without SQL arguments (which could hold account ids).
    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return "SQLite error \(error.resultCode): \(error.message ?? "")" }
        if let error = error as? LedgerError { return error.reason }
        return "\(type(of: error))"
    }
}
