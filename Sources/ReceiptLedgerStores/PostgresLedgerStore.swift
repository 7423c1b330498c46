import BER
public import Logging
import NIOCore
import NIOSSL
import PostgresNIO
@_spi(Fuzzing) public import ReceiptLedger
@_spi(Fuzzing) public import ReceiptModel
public import ReceiptVerification
import Synchronization

/// The ledger for replicas: one PostgreSQL database shared by every `receipt-server` behind a load balancer,
/// through postgres-nio's connection pool.
///
/// - Each batch is one transaction at PostgreSQL's default isolation (READ COMMITTED) that first takes a
///   transaction-scoped advisory lock (`writerLockKey`): the ledger's writers, on every replica, run one at a
///   time, and each reads, after the lock, everything committed before it. The primary keys of
///   `ledger_transactions` and `ledger_owners` back that up: a write that bypassed the lock and raced would fail
///   its whole batch, never report an id new twice or bind a purchase twice. A batch whose every verification is a
///   receipt the ledger recorded whole before (``LedgerReceiptKey``) writes only its audit entries, in one statement,
///   with no lock and no transaction around it: two round trips.
/// - A commit returns once PostgreSQL reports it durable (`synchronous_commit` on, the default), except a batch of
///   repeat sightings answered from its keys, which writes only audit entries: it commits once PostgreSQL has it
///   (`synchronous_commit` off for that statement's transaction), the promise SQLite's NORMAL commits make. It
///   survives `receipt-server` being killed; a crash of PostgreSQL (any of its processes) or of its machine, or a
///   failover to a synchronous standby, may take the audit entries of such batches since the WAL writer last
///   flushed (at most 3 × `wal_writer_delay`, 600 ms by default), never anything reported new or bound, and a later
///   durable commit makes them durable too (the WAL is written in order). ``LedgerStoreOptions/syncEveryCommit``
///   makes those wait for the flush as well.
/// - Migrations run at start in one transaction under another advisory lock: replicas starting together
///   migrate once.
/// - Every call has a deadline (``deadline``); a store that cannot be reached, or does not answer in time,
///   fails the call with `ledger.unavailable`.
public final class PostgresLedgerStore: LedgerStore {
    let client: PostgresClient
    /// The client's event loops, which also time each call's deadline (``withDeadline(_:)``).
    let eventLoopGroup: any EventLoopGroup
    let runner: Task<Void, Never>
    let logger: Logger
    /// The longest one call (a batch's whole transaction, a read) may take.
    public let deadline: Duration
    /// Whether commits write events (``LedgerStoreOptions/recordsEvents``).
    private let recordsEvents: Bool
    /// Whether a batch of repeat sightings also waits for its WAL flush (``LedgerStoreOptions/syncEveryCommit``).
    private let syncEveryCommit: Bool

    /// The advisory lock every batch holds; an arbitrary constant of this project ("RcptLedg").
    static let writerLockKey: Int64 = 0x5263_7074_4C65_6467
    /// The advisory lock migrations hold.
    static let migrationLockKey: Int64 = 0x5263_7074_4D69_6772
    /// The connections the pool keeps open however idle (of at most 8): the two a batch holds at once.
    static let persistentConnections = 2

    /// Connects (the pool opens ``persistentConnections`` at once, the others as they are needed) and migrates,
    /// unless read-only.
    /// - Throws: ``LedgerError`` `ledger.unavailable` or `ledger.migration_failed`.
    public init(
        location: LedgerLocation.Postgres, options: LedgerStoreOptions = LedgerStoreOptions(), logger: Logger
    ) async throws(LedgerError) {
        let deadline = options.deadline
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: .disable)
        if location.requiresTLS {
            configuration.tls = .require(TLSConfiguration.makeClientConfiguration())
        }
        configuration.options.maximumConnections = 8
        // A batch holds two connections at once (its audit entries on one, the subscriptions it reads back on the
        // other). Kept open for good, those two are parked without the idle-close timer postgres-nio's pool starts
        // (a task that sleeps, then is cancelled) each time a connection it may close goes idle: under load, once per
        // connection and batch. (Its keep-alive timer still starts at each park.) The pool opens them at start and
        // again after a failure, with its backoff, logging each failed attempt at `info`.
        configuration.options.minimumConnections = Self.persistentConnections
        // The guarantees assume READ COMMITTED (each statement after the advisory lock sees every commit before
        // it) and commits that wait for their WAL flush; set both for every session, whatever the database's own
        // defaults.
        // The deadline is enforced by the server too: a wait for the writer lock or a statement that outlasts it is
        // cancelled there, and its transaction rolled back, so a call that gives up has written nothing.
        // The prepared statements (``PostgresPreparedQuery``: lookups by key in `= ANY($1)` and inserts from one JSON
        // array) are planned once, generically, rather than for each batch's values; one-off queries (the ledger's
        // reads, the audit trail's filters) are unnamed statements, planned for their values as before.
        let milliseconds = String(
            deadline.components.seconds * 1000 + deadline.components.attoseconds / 1_000_000_000_000_000)
        configuration.options.additionalStartupParameters = [
            ("default_transaction_isolation", "read committed"), ("synchronous_commit", "on"),
            ("lock_timeout", milliseconds), ("statement_timeout", milliseconds),
            ("plan_cache_mode", "force_generic_plan"),
        ]
        let eventLoopGroup = PostgresClient.defaultEventLoopGroup
        let client = PostgresClient(
            configuration: configuration, eventLoopGroup: eventLoopGroup, backgroundLogger: logger)
        self.client = client
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.deadline = deadline
        recordsEvents = options.recordsEvents
        syncEveryCommit = options.syncEveryCommit
        runner = Task { await client.run() }
        guard !options.readOnly else { return }
        do {
            try await migrate()
        } catch {
            runner.cancel()
            throw error
        }
    }

    /// Replicas share the database.
    public var isShared: Bool { true }

    public func close() async {
        runner.cancel()
    }

    // MARK: - Migrations

    private func migrate() async throws(LedgerError) {
        let logger = logger
        do {
            if try await withDeadline({ connection in try await Self.schemaIsCurrent(connection, logger: logger) }) {
                return
            }
            try await withDeadline { leased in
                try await leased.withTransaction(logger: logger) { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.migrationLockKey))", logger: logger)
                    try await connection.query(
                        PostgresQuery(unsafeSQL: LedgerSchema.versionTable(.postgres)), logger: logger)
                    var applied = 0
                    for try await version in try await connection.query(
                        "SELECT COALESCE(MAX(version), 0)::bigint FROM ledger_schema", logger: logger
                    ).decode(Int64.self) {
                        applied = Int(clamping: version)
                    }
                    let migrations = LedgerSchema.migrations(.postgres)
                    guard applied <= migrations.count else {
                        throw LedgerError(
                            .migrationFailed,
                            "the ledger's schema is version \(applied); this build knows \(migrations.count)")
                    }
                    for (index, statements) in migrations.enumerated().dropFirst(applied) {
                        for statement in statements {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        let version = Int64(index + 1)
                        try await connection.query(
                            PostgresQuery(
                                unsafeSQL: "INSERT INTO ledger_schema (version, applied_ms) VALUES ($1, "
                                    + "\(LedgerSchema.databaseNow(.postgres)))",
                                binds: Self.binds(version)), logger: logger)
                    }
                }
            }
        } catch let error as LedgerError {
            throw error.code == .unavailable
                ? LedgerError(.migrationFailed, "cannot migrate the PostgreSQL ledger: \(error.reason)") : error
        } catch {
            throw LedgerError(.migrationFailed, "cannot migrate the PostgreSQL ledger: \(Self.describe(error))")
        }
    }

    // MARK: - Commit

    public func commit(_ entries: [LedgerEntry]) async throws(LedgerError) -> [LedgerOutcome] {
        let logger = logger
        let recordsEvents = recordsEvents
        let client = client
        let repeatsCommitLevel = Self.repeatsCommitLevel(syncEveryCommit: syncEveryCommit)
        do {
            return try await withDeadline { leased in
                // Receipts recorded whole before are answered from their key: their transactions are not read. A key
                // once written is never removed, so it is read before (and outside) the batch's transaction.
                let receiptKeys = LedgerPlan.receiptKeys(of: entries)
                let knownReceipts: Set<String>
                switch try await Self.answerFromKeys(
                    entries, receiptKeys, recordsEvents, leased, commitLevel: repeatsCommitLevel, client: client,
                    logger: logger)
                {
                case .answered(let outcomes): return outcomes
                case .notAll(let known): knownReceipts = known
                }
                let answered = receiptKeys.map { $0.map(knownReceipts.contains) ?? false }
                let keys = LedgerPlan.keys(of: entries, recordsEvents: recordsEvents, answered: answered)
                return try await leased.withTransaction(logger: logger) { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.writerLockKey))", logger: logger)
                    var read = try await Self.snapshot(connection, keys, logger: logger)
                    read.receiptKeys = receiptKeys
                    read.knownReceipts = knownReceipts
                    let (changes, outcomes) = LedgerPlan.decide(entries, snapshot: read, recordsEvents: recordsEvents)
                    try await Self.apply(changes, connection, logger: logger)
                    return outcomes
                }
            }
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError(.unavailable, "the PostgreSQL ledger could not record: \(Self.describe(error))")
        }
    }

    /// The `synchronous_commit` of a batch answered from its keys, which writes audit entries only: it commits without
    /// waiting for the WAL flush unless every commit must (the promise SQLite's NORMAL commits make, docs/ledger.md).
    static func repeatsCommitLevel(syncEveryCommit: Bool) -> String { syncEveryCommit ? "on" : "off" }

    /// What ``answerFromKeys(_:_:_:_:commitLevel:client:logger:)`` found.
    private enum KeyedAnswer {
        /// Every verification was answered from its receipt key, and its audit entry is written.
        case answered([LedgerOutcome])
        /// Not every one: nothing is written, and these are the batch's receipt keys the ledger knows.
        case notAll(Set<String>)
    }

    /// Answers a batch whose verifications all have receipt keys (``LedgerReceiptKey``) in one round trip when the
    /// ledger knows every key: the audit entries they would get if it does are written by one statement that first
    /// counts the keys it knows (``PostgresStatements/auditIfAllKnown``), and write nothing when one is missing. Then
    /// the subscriptions some read back (``LedgerEntry/readsSubscriptions``) are read, as committed. A batch with a
    /// verification that has no key only has its known keys looked up.
    private static func answerFromKeys(
        _ entries: [LedgerEntry], _ receiptKeys: [String?], _ recordsEvents: Bool, _ connection: PostgresConnection,
        commitLevel: String, client: PostgresClient, logger: Logger
    ) async throws -> KeyedAnswer {
        let wanted = LedgerPlan.distinctKeys(receiptKeys)
        guard !wanted.isEmpty else { return .notAll([]) }
        guard receiptKeys.allSatisfy({ $0 != nil }) else {
            return .notAll(try await knownReceipts(connection, wanted, logger: logger))
        }
        var assumed = LedgerSnapshot()
        assumed.receiptKeys = receiptKeys
        assumed.knownReceipts = Set(wanted)
        let (changes, outcomes) = LedgerPlan.decide(entries, snapshot: assumed, recordsEvents: recordsEvents)
        guard changes.onlyAudits else {
            return .notAll(try await knownReceipts(connection, wanted, logger: logger))
        }
        // The subscriptions the batch reads back are read on another connection meanwhile: the batch then waits
        // for one round trip, not three. When a key is missing the read is not used.
        let keys = LedgerPlan.keys(
            of: entries, recordsEvents: recordsEvents, answered: Array(repeating: true, count: entries.count))
        async let subscriptions =
            keys.subscriptionIDs.isEmpty
            ? LedgerSnapshot() : client.withConnection { try await snapshot($0, keys, logger: logger) }
        var bindings = binds(wanted)
        bindings.append(Int64(wanted.count))
        bindings.append(PostgresStatements.records(changes.audits.map(AuditRecord.init), capacity: 300))
        bindings.append(commitLevel)
        var known = Set<String>()
        var audited = false
        for try await row in try await prepared(PostgresStatements.AuditIfAllKnown.self, bindings, connection, logger) {
            let (key, written) = try row.decode((String, Int64).self)
            known.insert(key)
            audited = written > 0
        }
        guard audited else { return .notAll(known) }
        // Without subscriptions to read back, the outcomes decided for the audit entries are the answer.
        guard !keys.subscriptionIDs.isEmpty else { return .answered(outcomes) }
        assumed = try await subscriptions
        assumed.receiptKeys = receiptKeys
        assumed.knownReceipts = known
        return .answered(LedgerPlan.decide(entries, snapshot: assumed, recordsEvents: recordsEvents).1)
    }

    /// The keys among `wanted` the ledger remembers (one round trip for the batch).
    private static func knownReceipts(_ connection: PostgresConnection, _ wanted: [String], logger: Logger)
        async throws -> Set<String>
    {
        var known = Set<String>()
        for try await row in try await prepared(
            PostgresStatements.KnownReceipts.self, binds(wanted), connection, logger)
        {
            known.insert(try row.decode(String.self))
        }
        return known
    }

    private static func snapshot(_ connection: PostgresConnection, _ keys: LedgerKeys, logger: Logger) async throws
        -> LedgerSnapshot
    {
        var snapshot = LedgerSnapshot()
        if !keys.transactionIDs.isEmpty || !keys.subscriptionIDs.isEmpty {
            var bindings = binds(keys.transactionIDs)
            if !keys.subscriptionIDs.isEmpty { bindings.append(keys.subscriptionIDs) }
            let rows =
                keys.subscriptionIDs.isEmpty
                ? try await prepared(PostgresStatements.TransactionsByID.self, bindings, connection, logger)
                : try await prepared(PostgresStatements.TransactionsByIDOrOriginal.self, bindings, connection, logger)
            for try await row in rows {
                let transaction = try TransactionRecord(reading: row.makeRandomAccess()).transaction
                snapshot.transactions[transaction.transactionID] = transaction
            }
        }
        let originals = Set(keys.ownerIDs).union(keys.renewalIDs).sorted()
        if !originals.isEmpty {
            // Owners and renewal states in one round trip (each is one row per original transaction id, or none).
            let rows = try await prepared(
                PostgresStatements.OwnersAndRenewals.self, binds(originals), connection, logger)
            for try await row in rows {
                let cells = row.makeRandomAccess()
                let original = try cells.required(text: PostgresStatements.originalKey)
                if let account = try cells.text(OwnerRecord.Column.account) { snapshot.owners[original] = account }
                // A renewal state is held when the joined row has its key (every column is NULL when none).
                if try cells.text(RenewalRecord.Column.originalTransactionID) != nil {
                    snapshot.renewals[original] = try RenewalRecord(reading: cells).renewal
                }
            }
        }
        if !keys.notificationIDs.isEmpty {
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: PostgresStatements.notificationIDs, binds: binds(keys.notificationIDs)),
                logger: logger)
            for try await id in rows.decode(String.self) { snapshot.notificationIDs.insert(id) }
        }
        return snapshot
    }

    private static func apply(_ changes: LedgerChanges, _ connection: PostgresConnection, logger: Logger) async throws {
        if !changes.inserts.isEmpty {
            try await insert(
                PostgresStatements.InsertTransactions.self, changes.inserts.map(TransactionRecord.init), capacity: 400,
                connection, logger: logger)
        }
        if !changes.updates.isEmpty {
            try await insert(
                PostgresStatements.UpdateTransactions.self, changes.updates.map(TransactionRecord.init), capacity: 400,
                connection, logger: logger)
        }
        if let time = changes.touchTime, !changes.touched.isEmpty {
            var bindings = binds(time.millisecondsSince1970)
            bindings.append(changes.touched)
            try await run(PostgresStatements.TouchTransactions.self, bindings, connection, logger)
        }
        if !changes.bindings.isEmpty {
            try await insert(
                PostgresStatements.InsertOwners.self, changes.bindings.map(OwnerRecord.init), capacity: 120, connection,
                logger: logger)
        }
        if !changes.renewals.isEmpty {
            try await insert(
                PostgresStatements.UpsertRenewals.self, changes.renewals.map(RenewalRecord.init), capacity: 300,
                connection, logger: logger)
        }
        for notification in changes.notifications {
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: PostgresStatements.insertNotification,
                    binds: PostgresStatements.bindings(NotificationRecord(notification))), logger: logger)
        }
        if !changes.accountTokens.isEmpty {
            try await insert(
                PostgresStatements.InsertTokens.self,
                changes.accountTokens.map { AccountTokenRecord(transactionID: $0.transactionID, token: $0.token) },
                capacity: 120, connection, logger: logger)
        }
        if !changes.receipts.isEmpty {
            var bindings = binds(changes.receipts.map(\.key))
            bindings.append(changes.receipts.map(\.time.millisecondsSince1970))
            try await run(PostgresStatements.InsertReceipts.self, bindings, connection, logger)
        }
        if !changes.audits.isEmpty {
            try await insert(
                PostgresStatements.InsertAudits.self, changes.audits.map(AuditRecord.init), capacity: 300, connection,
                logger: logger)
        }
        if !changes.events.isEmpty {
            try await insert(
                PostgresStatements.InsertEvents.self, changes.events.map(EventRecord.init), capacity: 900, connection,
                logger: logger)
        }
    }

    /// Runs `text` with `records` bound as `$1`, one JSON array (``PostgresStatements/records(_:capacity:)``).
    private static func insert<Text: PostgresPreparedText, Record: LedgerRecord>(
        _ text: Text.Type, _ records: [Record], capacity: Int, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        try await run(text, binds(PostgresStatements.records(records, capacity: capacity)), connection, logger)
    }

    /// The renewal states held for `originalTransactionIDs`.
    private static func renewals(
        _ connection: PostgresConnection, originalTransactionIDs: [String], logger: Logger
    ) async throws -> [LedgerRenewal] {
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: PostgresStatements.renewalsByOriginal, binds: binds(originalTransactionIDs)),
            logger: logger)
        var renewals: [LedgerRenewal] = []
        for try await row in rows { renewals.append(try RenewalRecord(reading: row.makeRandomAccess()).renewal) }
        return renewals
    }

    /// Runs `text` prepared (``PostgresPreparedQuery``) with `bindings`.
    private static func prepared<Text: PostgresPreparedText>(
        _ text: Text.Type, _ bindings: PostgresBindings, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> AsyncThrowingMapSequence<PostgresRowSequence, PostgresRow> {
        try await connection.execute(PostgresPreparedQuery<Text>(bindings: bindings), logger: logger)
    }

    /// Runs `text` prepared, for what it writes: returns once the server has run it to its end.
    private static func run<Text: PostgresPreparedText>(
        _ text: Text.Type, _ bindings: PostgresBindings, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        for try await _ in try await prepared(text, bindings, connection, logger) {}
    }

    private static func binds<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(value)
        return bindings
    }

    // MARK: - Events

    public func settleAndClaimEvents(
        settling: [String: LedgerEventSettlement], owner: String, now: ReceiptDate, leaseUntil: ReceiptDate, limit: Int
    ) async throws(LedgerError) -> [LedgerEvent] {
        guard try LedgerLimits.admitsLeaseOwner(owner, claiming: limit) else { return [] }
        let count = min(limit, LedgerLimits.maximumEventClaim)
        // Text PostgreSQL would refuse (U+0000) names no event: such a settlement is ignored, as a stale owner's is.
        let settled = settling.filter { LedgerLimits.isText($0.key, maximum: LedgerLimits.maximumTokenLength) }
        var statements: [PostgresQuery] = []
        if !settled.isEmpty {
            var bindings = Self.binds(Self.settlements(settled))
            bindings.append(owner)
            statements.append(PostgresQuery(unsafeSQL: PostgresStatements.settleEvents, binds: bindings))
        }
        if count > 0 {
            var bindings = Self.binds(owner)
            bindings.append(leaseUntil.millisecondsSince1970)
            bindings.append(now.millisecondsSince1970)
            bindings.append(Int64(count))
            statements.append(PostgresQuery(unsafeSQL: PostgresStatements.claimEvents, binds: bindings))
        }
        guard !statements.isEmpty else { return [] }
        // The settlements commit first, so the claim sees the keys they released; RETURNING follows no order: the
        // deliverer gets them oldest first.
        return try await eventsWrite(statements).sorted { $0.sequence < $1.sequence }
    }

    /// Settlements as the JSON array ``PostgresStatements/settleEvents`` reads.
    private static func settlements(_ settling: [String: LedgerEventSettlement]) -> String {
        var writer = JSONWriter(capacity: 96 * settling.count)
        writer.beginArray()
        for (id, settlement) in settling {
            writer.beginObject()
            writer.field("id", id)
            switch settlement {
            case .delivered: writer.field("outcome", LedgerEvent.State.delivered.rawValue)
            case .retry: writer.field("outcome", "retry")
            case .failed: writer.field("outcome", LedgerEvent.State.failed.rawValue)
            }
            writer.field("at", settlement.time.millisecondsSince1970)
            if let error = settlement.error { writer.field("error", LedgerLimits.eventError(error)) }
            writer.endObject()
        }
        writer.endArray()
        return writer.string
    }

    public func events(_ query: LedgerEventQuery) async throws(LedgerError) -> [LedgerEvent] {
        var conditions: [String] = []
        var bindings = PostgresBindings()
        if query.onlyFailed { conditions.append(PostgresStatements.eventsFailed) }
        if let since = query.since {
            bindings.append(since.millisecondsSince1970)
            conditions.append(PostgresStatements.eventsSince + String(bindings.count))
        }
        var sql = PostgresStatements.events
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += PostgresStatements.eventOrder
        bindings.append(Int64(max(0, query.limit)))
        sql += " LIMIT $\(bindings.count)"
        let statement = PostgresQuery(unsafeSQL: sql, binds: bindings)
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query(statement, logger: logger)
            var events: [LedgerEvent] = []
            for try await row in rows { events.append(try EventRecord(reading: row.makeRandomAccess()).event) }
            return events
        }
    }

    public func requeueEvents(ids: [String]?, now: ReceiptDate) async throws(LedgerError) -> Int {
        // An id outside the limits (U+0000 included, which PostgreSQL's text refuses) names no event the ledger wrote.
        let wanted = ids.map { $0.filter { LedgerLimits.isText($0, maximum: LedgerLimits.maximumTokenLength) } }
        if let wanted, wanted.isEmpty { return 0 }
        var bindings = Self.binds(now.millisecondsSince1970)
        if let wanted { bindings.append(wanted) }
        let statement = PostgresQuery(
            unsafeSQL: wanted == nil ? PostgresStatements.requeueFailed : PostgresStatements.requeueIDs,
            binds: bindings)
        let logger = logger
        do {
            return try await withDeadline { connection in
                var count = 0
                for try await _ in try await connection.query(statement, logger: logger) { count += 1 }
                return count
            }
        } catch {
            throw Self.eventsFailure(error)
        }
    }

    public func pendingEvents() async throws(LedgerError) -> (count: Int, oldest: ReceiptDate?) {
        let logger = logger
        let (count, oldest) = try await read { connection -> (Int64, Int64?) in
            var found: (Int64, Int64?) = (0, nil)
            for try await (count, oldest) in try await connection.query(
                PostgresQuery(unsafeSQL: PostgresStatements.pendingEvents), logger: logger
            ).decode((Int64, Int64?).self) {
                found = (count, oldest)
            }
            return found
        }
        return (Int(clamping: count), TransactionRecord.date(oldest))
    }

    /// Runs `statements` in order on one connection, each committing on its own; the events they return.
    private func eventsWrite(_ statements: [PostgresQuery]) async throws(LedgerError) -> [LedgerEvent] {
        let logger = logger
        do {
            return try await withDeadline { connection in
                var events: [LedgerEvent] = []
                for statement in statements {
                    for try await row in try await connection.query(statement, logger: logger) {
                        let cells = row.makeRandomAccess()
                        // A settlement returns no rows; a claim returns the leased events.
                        guard cells.contains(EventRecord.Column.body.name) else { continue }
                        events.append(try EventRecord(reading: cells).event)
                    }
                }
                return events
            }
        } catch {
            throw Self.eventsFailure(error)
        }
    }

    private static func eventsFailure(_ error: any Error) -> LedgerError {
        error as? LedgerError
            ?? LedgerError(.unavailable, "the PostgreSQL ledger could not update its events: \(describe(error))")
    }

    // MARK: - Reads

    public func transaction(id: String) async throws(LedgerError) -> (LedgerTransaction, owner: String?)? {
        let logger = logger
        return try await read { connection in
            var found: (LedgerTransaction, owner: String?)?
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: PostgresStatements.transactionWithOwner, binds: Self.binds(id)),
                logger: logger)
            for try await row in rows {
                let cells = row.makeRandomAccess()
                found = (
                    try TransactionRecord(reading: cells).transaction, try cells.text(OwnerRecord.Column.account)
                )
            }
            if case (var transaction, let owner)? = found {
                let tokens = try await connection.query(
                    PostgresQuery(unsafeSQL: PostgresStatements.tokenOf, binds: Self.binds(id)), logger: logger)
                for try await row in tokens {
                    transaction.appAccountToken = try AccountTokenRecord(reading: row.makeRandomAccess()).token
                }
                found = (transaction, owner)
            }
            return found
        }
    }

    public func transactions(ownedBy account: String) async throws(LedgerError) -> [LedgerTransaction] {
        let logger = logger
        return try await read { connection in
            try await Self.transactions(
                connection, PostgresStatements.transactionsOwnedBy, Self.binds(account), logger: logger)
        }
    }

    public func renewals(ownedBy account: String) async throws(LedgerError) -> [LedgerRenewal] {
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: PostgresStatements.renewalsOwnedBy, binds: Self.binds(account)),
                logger: logger)
            var renewals: [LedgerRenewal] = []
            for try await row in rows { renewals.append(try RenewalRecord(reading: row.makeRandomAccess()).renewal) }
            return renewals
        }
    }

    public func subscriptions(originalTransactionIDs: [String]) async throws(LedgerError) -> LedgerSubscriptions {
        guard !originalTransactionIDs.isEmpty else { return LedgerSubscriptions() }
        let logger = logger
        return try await read { connection in
            LedgerSubscriptions(
                transactions: try await Self.transactions(
                    connection, PostgresStatements.transactionsByOriginal, Self.binds(originalTransactionIDs),
                    logger: logger),
                renewals: try await Self.renewals(
                    connection, originalTransactionIDs: originalTransactionIDs, logger: logger))
        }
    }

    /// The `ledger_transactions` rows `statement` selects.
    private static func transactions(
        _ connection: PostgresConnection, _ statement: String, _ bindings: PostgresBindings, logger: Logger
    ) async throws -> [LedgerTransaction] {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: statement, binds: bindings), logger: logger)
        var transactions: [LedgerTransaction] = []
        for try await row in rows {
            transactions.append(try TransactionRecord(reading: row.makeRandomAccess()).transaction)
        }
        return transactions
    }

    public func latestNotificationSignedDate(
        bundleID: String, environment: ReceiptEnvironment
    ) async throws(LedgerError) -> ReceiptDate? {
        // A bundle id the ledger would refuse to record names no notification it holds (and one holding U+0000
        // would be refused by PostgreSQL's text as an error).
        guard LedgerLimits.isBundleID(bundleID) else { return nil }
        var bindings = Self.binds(bundleID)
        bindings.append(EnvironmentColumn.text(environment))
        let statement = PostgresQuery(unsafeSQL: PostgresStatements.latestNotificationSignedDate, binds: bindings)
        let logger = logger
        let milliseconds = try await read { connection in
            var latest: Int64?
            for try await signed in try await connection.query(statement, logger: logger).decode(Int64.self) {
                latest = signed
            }
            return latest
        }
        return TransactionRecord.date(milliseconds)
    }

    public func auditEntries(_ query: AuditQuery) async throws(LedgerError) -> [AuditEntry] {
        var conditions: [String] = []
        var bindings = PostgresBindings()
        if let since = query.since {
            bindings.append(since.millisecondsSince1970)
            conditions.append(PostgresStatements.auditSince + String(bindings.count))
        }
        if let after = query.afterSequence {
            bindings.append(after)
            conditions.append(PostgresStatements.auditAfter + String(bindings.count))
        }
        if let account = query.account {
            bindings.append(account)
            conditions.append(PostgresStatements.auditAccount + String(bindings.count))
        }
        if let id = query.transactionID {
            bindings.append(id)
            let idPlaceholder = bindings.count
            var pattern = JSONWriter(capacity: 64)
            pattern.beginArray()
            pattern.beginObject()
            pattern.key("transaction_ids")
            LedgerColumnJSON.write(ids: [id], to: &pattern)
            pattern.endObject()
            pattern.endArray()
            bindings.append(pattern.string)
            conditions.append(PostgresStatements.auditTransaction(id: idPlaceholder, pattern: bindings.count))
        }
        // The query's filters choose the statement (its WHERE clause), from fragments written once.
        var sql = PostgresStatements.audits
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += PostgresStatements.auditOrder
        if let limit = query.limit {
            bindings.append(Int64(max(0, limit)))
            sql += " LIMIT $\(bindings.count)"
        }
        let statement = PostgresQuery(unsafeSQL: sql, binds: bindings)
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query(statement, logger: logger)
            var entries: [AuditEntry] = []
            for try await row in rows { entries.append(try AuditRecord(reading: row.makeRandomAccess()).entry) }
            return entries
        }
    }

    private func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws(LedgerError) -> T
    {
        do {
            return try await withDeadline(body)
        } catch let error as LedgerError {
            throw error
        } catch {
            throw LedgerError(.unavailable, "the PostgreSQL ledger could not be read: \(Self.describe(error))")
        }
    }

    /// What a call of ``withDeadline(_:)`` shares between its work and its deadline: the connection the work holds,
    /// whether the call was answered yet, and the deadline's timer until the work is done.
    private final class Call: Sendable {
        private struct State {
            var connection: PostgresConnection?
            var answered = false
            var workDone = false
            var timer: Scheduled<Void>?
        }

        private let state = Mutex(State())

        var connection: PostgresConnection? {
            get { state.withLock { $0.connection } }
            set { state.withLock { $0.connection = newValue } }
        }

        /// `true` for the first caller only: whoever answers the call.
        func claim() -> Bool {
            state.withLock { state in
                defer { state.answered = true }
                return !state.answered
            }
        }

        /// Keeps the deadline's timer, or cancels it at once when the work is already done.
        func keep(_ timer: Scheduled<Void>) {
            let done = state.withLock { state in
                if !state.workDone { state.timer = timer }
                return state.workDone
            }
            if done { timer.cancel() }
        }

        /// Notes that the work is done and cancels the deadline's timer, if it was kept.
        func finishWork() {
            state.withLock { state in
                state.workDone = true
                return state.timer.take()
            }?.cancel()
        }
    }

    /// Runs `body` on a connection of the pool, giving up after ``deadline`` plus a grace of 2 s.
    ///
    /// The deadline itself is enforced by PostgreSQL: every session carries it as `statement_timeout` and
    /// `lock_timeout`, so a slow statement or a wait for the writer lock fails there and its transaction rolls
    /// back before the grace runs out, and the call fails with what it really did. The grace covers what the
    /// server cannot time: no connection to be had, or a server that stopped answering. Then the call is answered
    /// `ledger.unavailable` at once, the connection (if one is held) is closed and the body cancelled; only in that
    /// case can a commit have completed unseen (docs/ledger.md, "Deadlines"). The grace is timed by an event loop
    /// (a scheduled callback, cancelled when the work ends), not by a task that sleeps and is then cancelled.
    private func withDeadline<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        let client = client
        let limit = deadline + .seconds(2)
        let loop = eventLoopGroup.any()
        let call = Call()
        return try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<T, any Error>) in
            let work = Task {
                do {
                    let value = try await client.withConnection { connection in
                        call.connection = connection
                        defer { call.connection = nil }
                        return try await body(connection)
                    }
                    if call.claim() { continuation.resume(returning: value) }
                } catch {
                    if call.claim() { continuation.resume(throwing: error) }
                }
                call.finishWork()
            }
            call.keep(
                loop.scheduleTask(in: TimeAmount(limit)) {
                    guard call.claim() else { return }
                    continuation.resume(
                        throwing: LedgerError(.unavailable, "the PostgreSQL ledger did not answer within \(limit)"))
                    work.cancel()
                    if let connection = call.connection { Task { try? await connection.close() } }
                })
        }
    }

    /// Whether the schema is already at this build's version, read without DDL or locks (so a user without the
    /// right to create tables can run a migrated database).
    private static func schemaIsCurrent(_ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        var exists = false
        for try await present in try await connection.query(
            "SELECT to_regclass('ledger_schema') IS NOT NULL", logger: logger
        ).decode(Bool.self) {
            exists = present
        }
        guard exists else { return false }
        var version: Int64 = 0
        for try await applied in try await connection.query(
            "SELECT COALESCE(MAX(version), 0)::bigint FROM ledger_schema", logger: logger
        ).decode(Int64.self) {
            version = applied
        }
        return version == Int64(LedgerSchema.latestVersion)
    }

    /// A driver error in words: PostgreSQL's own message when it sent one, never a query's parameters.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return "PostgreSQL: \(message) (\(error.serverInfo?[.sqlState] ?? "?"))"
            }
            return "PostgreSQL connection: \(error.code)"
        }
        if let error = error as? PostgresTransactionError {
            return describe(error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError ?? error)
        }
        if let error = error as? LedgerError { return error.reason }
        return "\(type(of: error))"
    }
}
