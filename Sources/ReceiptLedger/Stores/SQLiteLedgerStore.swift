import BER
import GRDB
import Glibc
public import ReceiptModel
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
/// - Another process holding the database's lock longer than ``busyTimeout`` makes a batch fail with
///   `ledger.unavailable`; nothing of it is written.
public final class SQLiteLedgerStore: LedgerStore {
    let pool: DatabasePool
    public let path: String
    private let syncEveryCommit: Bool
    /// The writer connection's `synchronous` setting: FULL (true) or NORMAL. Only the writer's queue reads and
    /// sets it; the mutex makes that visible to the compiler.
    private let synchronousFull = Mutex(true)

    /// Opens (creating when missing) and migrates the ledger at `path`; read-only, only opens an existing one.
    /// - Throws: ``LedgerError`` `ledger.unavailable` or `ledger.migration_failed`.
    public init(path: String, options: LedgerStoreOptions = LedgerStoreOptions()) throws(LedgerError) {
        self.path = path
        syncEveryCommit = options.syncEveryCommit
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
                    let snapshot = try Self.snapshot(db, LedgerPlan.keys(of: entries))
                    let (changes, decided) = LedgerPlan.decide(entries, snapshot: snapshot)
                    needsFull = needsFull || changes.changesFacts
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

    private static func snapshot(_ db: Database, _ keys: LedgerKeys) throws -> LedgerSnapshot {
        var snapshot = LedgerSnapshot()
        if !keys.transactionIDs.isEmpty || !keys.subscriptionIDs.isEmpty {
            let byID =
                "SELECT \(LedgerSchema.transactionColumns) FROM ledger_transactions "
                + "WHERE transaction_id IN (SELECT value FROM json_each(?))"
            let rows =
                keys.subscriptionIDs.isEmpty
                ? try Row.fetchCursor(
                    db.cachedStatement(sql: byID), arguments: [LedgerJSON.column(ids: keys.transactionIDs)])
                : try Row.fetchCursor(
                    db.cachedStatement(
                        sql: byID + " OR original_transaction_id IN (SELECT value FROM json_each(?))"),
                    arguments: [
                        LedgerJSON.column(ids: keys.transactionIDs), LedgerJSON.column(ids: keys.subscriptionIDs),
                    ])
            while let row = try rows.next() {
                let transaction = try transaction(row)
                snapshot.transactions[transaction.transactionID] = transaction
            }
        }
        if !keys.ownerIDs.isEmpty {
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: "SELECT original_transaction_id, account FROM ledger_owners "
                        + "WHERE original_transaction_id IN (SELECT value FROM json_each(?))"),
                arguments: [LedgerJSON.column(ids: keys.ownerIDs)])
            while let row = try rows.next() {
                snapshot.owners[row[0]] = row[1] as String
            }
        }
        for renewal in keys.renewalIDs.isEmpty ? [] : try renewals(db, originalTransactionIDs: keys.renewalIDs) {
            snapshot.renewals[renewal.originalTransactionID] = renewal
        }
        if !keys.notificationIDs.isEmpty {
            let held = try String.fetchAll(
                db.cachedStatement(
                    sql: "SELECT notification_id FROM ledger_notifications "
                        + "WHERE notification_id IN (SELECT value FROM json_each(?))"),
                arguments: [LedgerJSON.column(ids: keys.notificationIDs)])
            snapshot.notificationIDs = Set(held)
        }
        return snapshot
    }

    private static func apply(_ changes: LedgerChanges, _ db: Database) throws {
        if !changes.inserts.isEmpty {
            let insert = try db.cachedStatement(
                sql: "INSERT INTO ledger_transactions (\(LedgerSchema.transactionColumns)) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for transaction in changes.inserts { try insert.execute(arguments: arguments(transaction)) }
        }
        if !changes.updates.isEmpty {
            // Every column but the key and the first sighting (?12, bound and unused): a signed statement may
            // replace what an unsigned one recorded (LedgerTransaction.merged(with:)).
            let update = try db.cachedStatement(
                sql: "UPDATE ledger_transactions SET original_transaction_id = ?2, product_id = ?3, kind = ?4, "
                    + "bundle_id = ?5, environment = ?6, purchase_date_ms = ?7, expires_date_ms = ?8, "
                    + "cancellation_date_ms = ?9, web_order_line_item_id = ?10, source = ?11, "
                    + "last_seen_ms = MAX(last_seen_ms, ?13), signed_date_ms = ?14, reported_to_owner = ?15, "
                    + "reported_without_account = ?16 WHERE transaction_id = ?1")
            for transaction in changes.updates { try update.execute(arguments: arguments(transaction)) }
        }
        if let time = changes.touchTime, !changes.touched.isEmpty {
            try db.cachedStatement(
                sql: "UPDATE ledger_transactions SET last_seen_ms = MAX(last_seen_ms, ?) "
                    + "WHERE transaction_id IN (SELECT value FROM json_each(?))"
            ).execute(arguments: [time.millisecondsSince1970, LedgerJSON.column(ids: changes.touched)])
        }
        if !changes.bindings.isEmpty {
            let bind = try db.cachedStatement(
                sql: "INSERT INTO ledger_owners (original_transaction_id, account, bound_ms) VALUES (?, ?, ?)")
            for binding in changes.bindings {
                try bind.execute(arguments: [
                    binding.originalTransactionID, binding.account, binding.time.millisecondsSince1970,
                ])
            }
        }
        if !changes.renewals.isEmpty {
            let upsert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO ledger_renewals (\(LedgerSchema.renewalColumns)) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for renewal in changes.renewals {
                try upsert.execute(arguments: [
                    renewal.originalTransactionID, renewal.productID, renewal.autoRenewProductID,
                    renewal.autoRenewStatus, renewal.isInBillingRetryPeriod.map { $0 ? 1 : 0 },
                    renewal.gracePeriodExpiresDate?.millisecondsSince1970, renewal.expirationIntent,
                    renewal.renewalDate?.millisecondsSince1970, renewal.offerType, renewal.offerIdentifier,
                    renewal.environment,
                    renewal.signedDate.millisecondsSince1970, renewal.updated.millisecondsSince1970,
                ])
            }
        }
        if !changes.notifications.isEmpty {
            let insert = try db.cachedStatement(
                sql: "INSERT INTO ledger_notifications (notification_id, version, notification_type, subtype, "
                    + "signed_date_ms, received_ms, original_transaction_id, unverified_hints) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
            for notification in changes.notifications {
                try insert.execute(arguments: [
                    notification.id, notification.version, notification.notificationType, notification.subtype,
                    notification.signedDate?.millisecondsSince1970, notification.received.millisecondsSince1970,
                    notification.originalTransactionID, notification.unverifiedHints,
                ])
            }
        }
        if !changes.accountTokens.isEmpty {
            let insert = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO ledger_account_tokens (transaction_id, app_account_token) VALUES (?, ?)")
            for (id, token) in changes.accountTokens { try insert.execute(arguments: [id, token]) }
        }
        try appendAudits(changes.audits, db)
    }

    /// The batch's audit entries, one insert each, bound with SQLite's own calls (``SQLiteRawStatement``): this
    /// is the one statement a batch runs per verification.
    private static func appendAudits(_ audits: [AuditEntry], _ db: Database) throws {
        let audit = SQLiteRawStatement(
            try db.cachedStatement(
                sql: "INSERT INTO ledger_audit (time_ms, endpoint, receipt_sha256, verdict, reason, decided_by, "
                    + "account, new_transaction_ids, conflicts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
            in: db)
        for entry in audits {
            try audit.bind(entry.time.millisecondsSince1970, at: 1)
            try audit.bind(entry.endpoint, at: 2)
            try audit.bind(entry.receiptSHA256, at: 3)
            try audit.bind(entry.verdict, at: 4)
            try audit.bind(entry.reason, at: 5)
            try audit.bind(entry.decidedBy, at: 6)
            try audit.bind(entry.account, at: 7)
            try audit.bind(LedgerJSON.column(ids: entry.newTransactionIDs), at: 8)
            try audit.bind(LedgerJSON.column(conflicts: entry.conflicts), at: 9)
            try audit.run()
        }
    }

    private static func arguments(_ transaction: LedgerTransaction) -> StatementArguments {
        [
            transaction.transactionID, transaction.originalTransactionID, transaction.productID,
            transaction.kind.rawValue, transaction.bundleID, transaction.environment,
            transaction.purchaseDate?.millisecondsSince1970, transaction.expiresDate?.millisecondsSince1970,
            transaction.cancellationDate?.millisecondsSince1970, transaction.webOrderLineItemID,
            transaction.source.rawValue, transaction.firstSeen.millisecondsSince1970,
            transaction.lastSeen.millisecondsSince1970, transaction.signedDate?.millisecondsSince1970,
            transaction.reportedToOwner ? 1 : 0, transaction.reportedWithoutAccount ? 1 : 0,
        ]
    }

    /// A `ledger_transactions` row, columns in ``LedgerSchema/transactionColumns`` order.
    private static func transaction(_ row: Row) throws -> LedgerTransaction {
        LedgerTransaction(
            transactionID: row[0], originalTransactionID: row[1], productID: row[2],
            kind: ProductKind(rawValue: row[3]) ?? .unknown, bundleID: row[4], environment: row[5],
            purchaseDate: date(row[6]), expiresDate: date(row[7]), cancellationDate: date(row[8]),
            webOrderLineItemID: row[9], source: LedgerSource(rawValue: row[10]),
            firstSeen: date(row[11]) ?? ReceiptDate(clampingMillisecondsSince1970: 0),
            lastSeen: date(row[12]) ?? ReceiptDate(clampingMillisecondsSince1970: 0), signedDate: date(row[13]),
            reportedToOwner: (row[14] as Int64) != 0, reportedWithoutAccount: (row[15] as Int64) != 0)
    }

    /// The renewal states held for `originalTransactionIDs`.
    private static func renewals(_ db: Database, originalTransactionIDs: [String]) throws -> [LedgerRenewal] {
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT \(LedgerSchema.renewalColumns) FROM ledger_renewals "
                    + "WHERE original_transaction_id IN (SELECT value FROM json_each(?))"),
            arguments: [LedgerJSON.column(ids: originalTransactionIDs)])
        var renewals: [LedgerRenewal] = []
        while let row = try rows.next() { renewals.append(renewal(row)) }
        return renewals
    }

    /// A `ledger_renewals` row, columns in ``LedgerSchema/renewalColumns`` order.
    private static func renewal(_ row: Row) -> LedgerRenewal {
        let retry: Int64? = row[4]
        return LedgerRenewal(
            originalTransactionID: row[0], productID: row[1], autoRenewProductID: row[2], autoRenewStatus: row[3],
            isInBillingRetryPeriod: retry.map { $0 != 0 }, gracePeriodExpiresDate: date(row[5]),
            expirationIntent: row[6], renewalDate: date(row[7]), offerType: row[8], offerIdentifier: row[9],
            environment: row[10], signedDate: ReceiptDate(clampingMillisecondsSince1970: row[11]),
            updated: ReceiptDate(clampingMillisecondsSince1970: row[12]))
    }

    private static func date(_ milliseconds: Int64?) -> ReceiptDate? {
        milliseconds.map { ReceiptDate(clampingMillisecondsSince1970: $0) }
    }

    // MARK: - Reads

    public func transaction(id: String) async throws(LedgerError) -> (LedgerTransaction, owner: String?)? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT \(LedgerSchema.transactionColumns) FROM ledger_transactions WHERE transaction_id = ?",
                    arguments: [id])
            else { return nil }
            var transaction = try Self.transaction(row)
            transaction.appAccountToken = try String.fetchOne(
                db, sql: "SELECT app_account_token FROM ledger_account_tokens WHERE transaction_id = ?", arguments: [id]
            )
            let owner = try String.fetchOne(
                db, sql: "SELECT account FROM ledger_owners WHERE original_transaction_id = ?",
                arguments: [transaction.originalTransactionID])
            return (transaction, owner)
        }
    }

    public func transactions(ownedBy account: String) async throws(LedgerError) -> [LedgerTransaction] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(LedgerSchema.transactionColumns) FROM ledger_transactions WHERE original_transaction_id "
                    + "IN (SELECT original_transaction_id FROM ledger_owners WHERE account = ?) ORDER BY transaction_id",
                arguments: [account]
            ).map(Self.transaction)
        }
    }

    /// Whether the ledger holds any subscription state a receipt cannot show (renewal info, notifications).
    public func holdsSubscriptionState() async throws(LedgerError) -> Bool {
        try await read { db in
            try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM ledger_renewals) OR EXISTS (SELECT 1 FROM ledger_notifications) "
                    + "OR EXISTS (SELECT 1 FROM ledger_account_tokens) OR EXISTS (SELECT 1 FROM ledger_transactions "
                    + "WHERE source IN ('\(LedgerSource.storeKit.rawValue)', '\(LedgerSource.notification.rawValue)'))")
                ?? true
        }
    }

    public func renewals(ownedBy account: String) async throws(LedgerError) -> [LedgerRenewal] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(LedgerSchema.renewalColumns) FROM ledger_renewals WHERE original_transaction_id "
                    + "IN (SELECT original_transaction_id FROM ledger_owners WHERE account = ?) "
                    + "ORDER BY original_transaction_id",
                arguments: [account]
            ).map(Self.renewal)
        }
    }

    public func subscriptions(originalTransactionIDs: [String]) async throws(LedgerError) -> LedgerSubscriptions {
        guard !originalTransactionIDs.isEmpty else { return LedgerSubscriptions() }
        return try await read { db in
            let ids = LedgerJSON.column(ids: originalTransactionIDs)
            let transactions = try Row.fetchAll(
                db,
                sql: "SELECT \(LedgerSchema.transactionColumns) FROM ledger_transactions WHERE original_transaction_id "
                    + "IN (SELECT value FROM json_each(?)) ORDER BY transaction_id", arguments: [ids]
            ).map(Self.transaction)
            return LedgerSubscriptions(
                transactions: transactions,
                renewals: try Self.renewals(db, originalTransactionIDs: originalTransactionIDs))
        }
    }

    public func auditEntries(_ query: AuditQuery) async throws(LedgerError) -> [AuditEntry] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let since = query.since {
            conditions.append("time_ms >= ?")
            arguments += [since.millisecondsSince1970]
        }
        if let after = query.afterSequence {
            conditions.append("seq > ?")
            arguments += [after]
        }
        if let account = query.account {
            conditions.append("account = ?")
            arguments += [account]
        }
        if let id = query.transactionID {
            conditions.append(
                "(EXISTS (SELECT 1 FROM json_each(new_transaction_ids) WHERE value = ?) OR EXISTS (SELECT 1 FROM "
                    + "json_each(conflicts) AS c, json_each(c.value, '$.transaction_ids') AS t WHERE t.value = ?))")
            arguments += [id, id]
        }
        var sql = "SELECT \(LedgerSchema.auditColumns) FROM ledger_audit"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY seq"
        if let limit = query.limit {
            sql += " LIMIT ?"
            arguments += [max(0, limit)]
        }
        let statement = sql
        let bound = arguments
        return try await read { db in
            try Row.fetchAll(db, sql: statement, arguments: bound).map { row in
                AuditEntry(
                    sequence: row[0], time: ReceiptDate(clampingMillisecondsSince1970: row[1]), endpoint: row[2],
                    receiptSHA256: row[3], verdict: row[4], reason: row[5], decidedBy: row[6], account: row[7],
                    newTransactionIDs: LedgerJSON.ids(column: row[8]), conflicts: LedgerJSON.conflicts(column: row[9]))
            }
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
