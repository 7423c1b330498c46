import BER
public import Logging
import NIOSSL
import PostgresNIO
import ReceiptModel
import Synchronization

/// The ledger for replicas: one PostgreSQL database shared by every `receipt-server` behind a load balancer,
/// through postgres-nio's connection pool.
///
/// - Each batch is one transaction at PostgreSQL's default isolation (READ COMMITTED) that first takes a
///   transaction-scoped advisory lock (``writerLockKey``): the ledger's writers, on every replica, run one at a
///   time, and each reads, after the lock, everything committed before it. The primary keys of
///   `ledger_transactions` and `ledger_owners` back that up: a write that bypassed the lock and raced would fail
///   its whole batch, never report an id new twice or bind a purchase twice.
/// - A commit returns once PostgreSQL reports it durable (`synchronous_commit` on, the default).
/// - Migrations run at start in one transaction under another advisory lock: replicas starting together
///   migrate once.
/// - Every call has a deadline (``deadline``); a store that cannot be reached, or does not answer in time,
///   fails the call with `ledger.unavailable`.
public final class PostgresLedgerStore: LedgerStore {
    let client: PostgresClient
    let runner: Task<Void, Never>
    let logger: Logger
    /// The longest one call (a batch's whole transaction, a read) may take.
    public let deadline: Duration

    /// The advisory lock every batch holds; an arbitrary constant of this project ("RcptLedg").
    static let writerLockKey: Int64 = 0x5263_7074_4C65_6467
    /// The advisory lock migrations hold.
    static let migrationLockKey: Int64 = 0x5263_7074_4D69_6772

    /// Connects (lazily: the pool opens connections as they are needed) and migrates, unless read-only.
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
        // The guarantees assume READ COMMITTED (each statement after the advisory lock sees every commit before
        // it) and commits that wait for their WAL flush; set both for every session, whatever the database's own
        // defaults.
        // The deadline is enforced by the server too: a wait for the writer lock or a statement that outlasts it is
        // cancelled there, and its transaction rolled back, so a call that gives up has written nothing.
        let milliseconds = String(
            deadline.components.seconds * 1000 + deadline.components.attoseconds / 1_000_000_000_000_000)
        configuration.options.additionalStartupParameters = [
            ("default_transaction_isolation", "read committed"), ("synchronous_commit", "on"),
            ("lock_timeout", milliseconds), ("statement_timeout", milliseconds),
        ]
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        self.deadline = deadline
        runner = Task { await client.run() }
        guard !options.readOnly else { return }
        do {
            try await migrate()
        } catch {
            runner.cancel()
            throw error
        }
    }

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
        do {
            return try await withDeadline { leased in
                try await leased.withTransaction(logger: logger) { connection in
                    try await connection.query("SELECT pg_advisory_xact_lock(\(Self.writerLockKey))", logger: logger)
                    let snapshot = try await Self.snapshot(connection, LedgerPlan.keys(of: entries), logger: logger)
                    let (changes, outcomes) = LedgerPlan.decide(entries, snapshot: snapshot)
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

    private static func snapshot(_ connection: PostgresConnection, _ keys: LedgerKeys, logger: Logger) async throws
        -> LedgerSnapshot
    {
        var snapshot = LedgerSnapshot()
        if !keys.transactionIDs.isEmpty || !keys.subscriptionIDs.isEmpty {
            let byID =
                "SELECT \(LedgerSchema.transactionColumns) FROM ledger_transactions WHERE transaction_id = ANY($1)"
            var bindings = binds(keys.transactionIDs)
            if !keys.subscriptionIDs.isEmpty { bindings.append(keys.subscriptionIDs) }
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: keys.subscriptionIDs.isEmpty ? byID : byID + " OR original_transaction_id = ANY($2)",
                    binds: bindings), logger: logger)
            for try await row in rows.decode(TransactionRow.self) {
                let transaction = transaction(row)
                snapshot.transactions[transaction.transactionID] = transaction
            }
        }
        let originals = Set(keys.ownerIDs).union(keys.renewalIDs).sorted()
        if !originals.isEmpty {
            // Owners and renewal states in one round trip (each is one row per original transaction id, or none).
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: Self.ownersAndRenewals, binds: binds(originals)), logger: logger)
            for try await row in rows.decode(OwnerAndRenewalRow.self) {
                if let account = row.1 { snapshot.owners[row.0] = account }
                if let original = row.2, let environment = row.12, let signed = row.13, let updated = row.14 {
                    snapshot.renewals[original] = renewal(
                        (
                            original, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10, row.11, environment,
                            signed, updated
                        ))
                }
            }
        }
        if !keys.notificationIDs.isEmpty {
            let rows = try await connection.query(
                "SELECT notification_id FROM ledger_notifications WHERE notification_id = ANY(\(keys.notificationIDs))",
                logger: logger)
            for try await id in rows.decode(String.self) { snapshot.notificationIDs.insert(id) }
        }
        return snapshot
    }

    private static func apply(_ changes: LedgerChanges, _ connection: PostgresConnection, logger: Logger) async throws {
        if !changes.inserts.isEmpty {
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO ledger_transactions (\(LedgerSchema.transactionColumns)) SELECT * FROM "
                        + "jsonb_to_recordset($1::jsonb) AS x(\(Self.transactionRecord))",
                    binds: binds(records(changes.inserts))), logger: logger)
        }
        if !changes.updates.isEmpty {
            // Every column but the key and the first sighting: a signed statement may replace what an unsigned one
            // recorded (LedgerTransaction.merged(with:)).
            try await connection.query(
                PostgresQuery(
                    unsafeSQL:
                        "UPDATE ledger_transactions AS t SET original_transaction_id = x.original_transaction_id, "
                        + "product_id = x.product_id, kind = x.kind, bundle_id = x.bundle_id, environment = "
                        + "x.environment, purchase_date_ms = x.purchase_date_ms, expires_date_ms = x.expires_date_ms, "
                        + "cancellation_date_ms = x.cancellation_date_ms, web_order_line_item_id = "
                        + "x.web_order_line_item_id, source = x.source, "
                        + "last_seen_ms = GREATEST(t.last_seen_ms, x.last_seen_ms), signed_date_ms = x.signed_date_ms, "
                        + "reported_to_owner = x.reported_to_owner, reported_without_account = "
                        + "x.reported_without_account FROM jsonb_to_recordset($1::jsonb) AS x(\(Self.transactionRecord)) "
                        + "WHERE t.transaction_id = x.transaction_id",
                    binds: binds(records(changes.updates))), logger: logger)
        }
        if let time = changes.touchTime, !changes.touched.isEmpty {
            try await connection.query(
                "UPDATE ledger_transactions SET last_seen_ms = GREATEST(last_seen_ms, \(time.millisecondsSince1970)) WHERE transaction_id = ANY(\(changes.touched))",
                logger: logger)
        }
        if !changes.bindings.isEmpty {
            try await connection.query(
                "INSERT INTO ledger_owners (original_transaction_id, account, bound_ms) SELECT * FROM unnest(\(changes.bindings.map(\.originalTransactionID))::text[], \(changes.bindings.map(\.account))::text[], \(changes.bindings.map(\.time.millisecondsSince1970))::bigint[])",
                logger: logger)
        }
        if !changes.renewals.isEmpty {
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO ledger_renewals (\(LedgerSchema.renewalColumns)) SELECT * FROM "
                        + "jsonb_to_recordset($1::jsonb) AS x(original_transaction_id text, product_id text, "
                        + "auto_renew_product_id text, auto_renew_status bigint, in_billing_retry bigint, "
                        + "grace_period_expires_ms bigint, expiration_intent bigint, renewal_date_ms bigint, "
                        + "offer_type bigint, offer_identifier text, environment text, signed_date_ms bigint, "
                        + "updated_ms bigint) "
                        + "ON CONFLICT (original_transaction_id) DO UPDATE SET product_id = EXCLUDED.product_id, "
                        + "auto_renew_product_id = EXCLUDED.auto_renew_product_id, auto_renew_status = "
                        + "EXCLUDED.auto_renew_status, in_billing_retry = EXCLUDED.in_billing_retry, "
                        + "grace_period_expires_ms = EXCLUDED.grace_period_expires_ms, expiration_intent = "
                        + "EXCLUDED.expiration_intent, renewal_date_ms = EXCLUDED.renewal_date_ms, offer_type = "
                        + "EXCLUDED.offer_type, offer_identifier = EXCLUDED.offer_identifier, environment = "
                        + "EXCLUDED.environment, signed_date_ms = EXCLUDED.signed_date_ms, updated_ms = EXCLUDED.updated_ms",
                    binds: binds(records(changes.renewals))), logger: logger)
        }
        for notification in changes.notifications {
            try await connection.query(
                "INSERT INTO ledger_notifications (notification_id, version, notification_type, subtype, signed_date_ms, received_ms, original_transaction_id, unverified_hints) VALUES (\(notification.id), \(notification.version), \(notification.notificationType), \(notification.subtype), \(notification.signedDate?.millisecondsSince1970), \(notification.received.millisecondsSince1970), \(notification.originalTransactionID), \(notification.unverifiedHints))",
                logger: logger)
        }
        if !changes.accountTokens.isEmpty {
            try await connection.query(
                "INSERT INTO ledger_account_tokens (transaction_id, app_account_token) SELECT * FROM unnest(\(changes.accountTokens.map(\.transactionID))::text[], \(changes.accountTokens.map(\.token))::text[]) ON CONFLICT (transaction_id) DO NOTHING",
                logger: logger)
        }
        if !changes.audits.isEmpty {
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO ledger_audit (time_ms, endpoint, receipt_sha256, verdict, reason, "
                        + "decided_by, account, new_transaction_ids, conflicts) SELECT * FROM "
                        + "jsonb_to_recordset($1::jsonb) AS x(time_ms bigint, endpoint text, receipt_sha256 text, "
                        + "verdict text, reason text, decided_by text, account text, new_transaction_ids text, "
                        + "conflicts text)",
                    binds: binds(records(changes.audits))), logger: logger)
        }
    }

    // MARK: - Rows

    typealias TransactionRow = (
        String, String, String, String, String, String, Int64?, Int64?, Int64?, String?, String, Int64, Int64, Int64?,
        Int64, Int64
    )

    /// The columns of ``LedgerSchema/transactionColumns`` with their types, for `jsonb_to_recordset`.
    static let transactionRecord =
        "transaction_id text, original_transaction_id text, product_id text, kind text, bundle_id text, "
        + "environment text, purchase_date_ms bigint, expires_date_ms bigint, cancellation_date_ms bigint, "
        + "web_order_line_item_id text, source text, first_seen_ms bigint, last_seen_ms bigint, signed_date_ms bigint, "
        + "reported_to_owner bigint, reported_without_account bigint"

    private static func transaction(_ row: TransactionRow) -> LedgerTransaction {
        LedgerTransaction(
            transactionID: row.0, originalTransactionID: row.1, productID: row.2,
            kind: ProductKind(rawValue: row.3) ?? .unknown, bundleID: row.4, environment: row.5,
            purchaseDate: date(row.6), expiresDate: date(row.7), cancellationDate: date(row.8),
            webOrderLineItemID: row.9, source: LedgerSource(rawValue: row.10),
            firstSeen: ReceiptDate(clampingMillisecondsSince1970: row.11),
            lastSeen: ReceiptDate(clampingMillisecondsSince1970: row.12), signedDate: date(row.13),
            reportedToOwner: row.14 != 0, reportedWithoutAccount: row.15 != 0)
    }

    private static func date(_ milliseconds: Int64?) -> ReceiptDate? {
        milliseconds.map { ReceiptDate(clampingMillisecondsSince1970: $0) }
    }

    /// Transactions as a JSON array of records, for `jsonb_to_recordset`.
    private static func records(_ transactions: [LedgerTransaction]) -> String {
        var writer = JSONWriter(capacity: 64 + 400 * transactions.count)
        writer.beginArray()
        for transaction in transactions {
            writer.beginObject()
            writer.field("transaction_id", transaction.transactionID)
            writer.field("original_transaction_id", transaction.originalTransactionID)
            writer.field("product_id", transaction.productID)
            writer.field("kind", transaction.kind.rawValue)
            writer.field("bundle_id", transaction.bundleID)
            writer.field("environment", transaction.environment)
            number("purchase_date_ms", transaction.purchaseDate?.millisecondsSince1970, to: &writer)
            number("expires_date_ms", transaction.expiresDate?.millisecondsSince1970, to: &writer)
            number("cancellation_date_ms", transaction.cancellationDate?.millisecondsSince1970, to: &writer)
            if let id = transaction.webOrderLineItemID { writer.field("web_order_line_item_id", id) }
            writer.field("source", transaction.source.rawValue)
            writer.field("first_seen_ms", transaction.firstSeen.millisecondsSince1970)
            writer.field("last_seen_ms", transaction.lastSeen.millisecondsSince1970)
            number("signed_date_ms", transaction.signedDate?.millisecondsSince1970, to: &writer)
            writer.field("reported_to_owner", Int64(transaction.reportedToOwner ? 1 : 0))
            writer.field("reported_without_account", Int64(transaction.reportedWithoutAccount ? 1 : 0))
            writer.endObject()
        }
        writer.endArray()
        return writer.string
    }

    /// Audit entries as a JSON array of records, for `jsonb_to_recordset`.
    private static func records(_ audits: [AuditEntry]) -> String {
        var writer = JSONWriter(capacity: 64 + 300 * audits.count)
        writer.beginArray()
        for entry in audits {
            writer.beginObject()
            writer.field("time_ms", entry.time.millisecondsSince1970)
            writer.field("endpoint", entry.endpoint)
            writer.field("receipt_sha256", entry.receiptSHA256)
            writer.field("verdict", entry.verdict)
            if let reason = entry.reason { writer.field("reason", reason) }
            writer.field("decided_by", entry.decidedBy)
            if let account = entry.account { writer.field("account", account) }
            writer.field("new_transaction_ids", LedgerJSON.column(ids: entry.newTransactionIDs))
            writer.field("conflicts", LedgerJSON.column(conflicts: entry.conflicts))
            writer.endObject()
        }
        writer.endArray()
        return writer.string
    }

    /// Renewal states as a JSON array of records, for `jsonb_to_recordset`.
    private static func records(_ renewals: [LedgerRenewal]) -> String {
        var writer = JSONWriter(capacity: 64 + 300 * renewals.count)
        writer.beginArray()
        for renewal in renewals {
            writer.beginObject()
            writer.field("original_transaction_id", renewal.originalTransactionID)
            if let value = renewal.productID { writer.field("product_id", value) }
            if let value = renewal.autoRenewProductID { writer.field("auto_renew_product_id", value) }
            number("auto_renew_status", renewal.autoRenewStatus, to: &writer)
            number("in_billing_retry", renewal.isInBillingRetryPeriod.map { $0 ? 1 : 0 }, to: &writer)
            number("grace_period_expires_ms", renewal.gracePeriodExpiresDate?.millisecondsSince1970, to: &writer)
            number("expiration_intent", renewal.expirationIntent, to: &writer)
            number("renewal_date_ms", renewal.renewalDate?.millisecondsSince1970, to: &writer)
            number("offer_type", renewal.offerType, to: &writer)
            if let value = renewal.offerIdentifier { writer.field("offer_identifier", value) }
            writer.field("environment", renewal.environment)
            writer.field("signed_date_ms", renewal.signedDate.millisecondsSince1970)
            writer.field("updated_ms", renewal.updated.millisecondsSince1970)
            writer.endObject()
        }
        writer.endArray()
        return writer.string
    }

    typealias RenewalRow = (
        String, String?, String?, Int64?, Int64?, Int64?, Int64?, Int64?, Int64?, String?, String, Int64, Int64
    )

    /// Each of `$1`'s original transaction ids with its owner and its `ledger_renewals` row (``OwnerAndRenewalRow``).
    private static let ownersAndRenewals =
        "SELECT k.id, o.account, "
        + LedgerSchema.renewalColumns.split(separator: ", ").map { "r.\($0)" }.joined(separator: ", ")
        + " FROM unnest($1::text[]) AS k(id) LEFT JOIN ledger_owners o ON o.original_transaction_id = k.id "
        + "LEFT JOIN ledger_renewals r ON r.original_transaction_id = k.id"

    /// An original transaction id, its owner, and its `ledger_renewals` row (every column `NULL` when none).
    typealias OwnerAndRenewalRow = (
        String, String?, String?, String?, String?, Int64?, Int64?, Int64?, Int64?, Int64?, Int64?, String?, String?,
        Int64?, Int64?
    )

    private static func renewal(_ row: RenewalRow) -> LedgerRenewal {
        LedgerRenewal(
            originalTransactionID: row.0, productID: row.1, autoRenewProductID: row.2, autoRenewStatus: row.3,
            isInBillingRetryPeriod: row.4.map { $0 != 0 }, gracePeriodExpiresDate: date(row.5),
            expirationIntent: row.6, renewalDate: date(row.7), offerType: row.8, offerIdentifier: row.9,
            environment: row.10, signedDate: ReceiptDate(clampingMillisecondsSince1970: row.11),
            updated: ReceiptDate(clampingMillisecondsSince1970: row.12))
    }

    /// The renewal states held for `originalTransactionIDs`.
    private static func renewals(
        _ connection: PostgresConnection, originalTransactionIDs: [String], logger: Logger
    ) async throws -> [LedgerRenewal] {
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: "SELECT \(LedgerSchema.renewalColumns) FROM ledger_renewals "
                    + "WHERE original_transaction_id = ANY($1) ORDER BY original_transaction_id",
                binds: binds(originalTransactionIDs)), logger: logger)
        var renewals: [LedgerRenewal] = []
        for try await row in rows.decode(RenewalRow.self) { renewals.append(renewal(row)) }
        return renewals
    }

    private static func number(_ name: String, _ value: Int64?, to writer: inout JSONWriter) {
        if let value { writer.field(name, value) }
    }

    private static func binds<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(value)
        return bindings
    }

    // MARK: - Reads

    public func transaction(id: String) async throws(LedgerError) -> (LedgerTransaction, owner: String?)? {
        let logger = logger
        return try await read { connection in
            var found: (LedgerTransaction, owner: String?)?
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT \(Self.prefixed(LedgerSchema.transactionColumns)), o.account FROM "
                        + "ledger_transactions AS t LEFT JOIN ledger_owners AS o ON o.original_transaction_id = "
                        + "t.original_transaction_id WHERE t.transaction_id = $1", binds: Self.binds(id)),
                logger: logger)
            for try await row in rows.decode(
                (
                    String, String, String, String, String, String, Int64?, Int64?, Int64?, String?, String, Int64,
                    Int64, Int64?, Int64, Int64, String?
                ).self)
            {
                let transaction = Self.transaction(
                    (
                        row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10, row.11, row.12,
                        row.13, row.14, row.15
                    ))
                found = (transaction, row.16)
            }
            if case (var transaction, let owner)? = found {
                let tokens = try await connection.query(
                    "SELECT app_account_token FROM ledger_account_tokens WHERE transaction_id = \(id)", logger: logger)
                for try await token in tokens.decode(String.self) { transaction.appAccountToken = token }
                found = (transaction, owner)
            }
            return found
        }
    }

    public func transactions(ownedBy account: String) async throws(LedgerError) -> [LedgerTransaction] {
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT \(LedgerSchema.transactionColumns) FROM ledger_transactions WHERE "
                        + "original_transaction_id IN (SELECT original_transaction_id FROM ledger_owners WHERE "
                        + "account = $1) ORDER BY transaction_id", binds: Self.binds(account)), logger: logger)
            var transactions: [LedgerTransaction] = []
            for try await row in rows.decode(TransactionRow.self) { transactions.append(Self.transaction(row)) }
            return transactions
        }
    }

    public func renewals(ownedBy account: String) async throws(LedgerError) -> [LedgerRenewal] {
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT \(LedgerSchema.renewalColumns) FROM ledger_renewals WHERE "
                        + "original_transaction_id IN (SELECT original_transaction_id FROM ledger_owners WHERE "
                        + "account = $1) ORDER BY original_transaction_id", binds: Self.binds(account)), logger: logger)
            var renewals: [LedgerRenewal] = []
            for try await row in rows.decode(RenewalRow.self) { renewals.append(Self.renewal(row)) }
            return renewals
        }
    }

    public func subscriptions(originalTransactionIDs: [String]) async throws(LedgerError) -> LedgerSubscriptions {
        guard !originalTransactionIDs.isEmpty else { return LedgerSubscriptions() }
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT \(LedgerSchema.transactionColumns) FROM ledger_transactions WHERE "
                        + "original_transaction_id = ANY($1) ORDER BY transaction_id",
                    binds: Self.binds(originalTransactionIDs)), logger: logger)
            var transactions: [LedgerTransaction] = []
            for try await row in rows.decode(TransactionRow.self) { transactions.append(Self.transaction(row)) }
            return LedgerSubscriptions(
                transactions: transactions,
                renewals: try await Self.renewals(
                    connection, originalTransactionIDs: originalTransactionIDs, logger: logger))
        }
    }

    public func auditEntries(_ query: AuditQuery) async throws(LedgerError) -> [AuditEntry] {
        var conditions: [String] = []
        var bindings = PostgresBindings()
        if let since = query.since {
            bindings.append(since.millisecondsSince1970)
            conditions.append("time_ms >= $\(bindings.count)")
        }
        if let after = query.afterSequence {
            bindings.append(after)
            conditions.append("seq > $\(bindings.count)")
        }
        if let account = query.account {
            bindings.append(account)
            conditions.append("account = $\(bindings.count)")
        }
        if let id = query.transactionID {
            bindings.append(id)
            let idPlaceholder = bindings.count
            var pattern = JSONWriter(capacity: 64)
            pattern.beginArray()
            pattern.beginObject()
            pattern.key("transaction_ids")
            LedgerJSON.write(ids: [id], to: &pattern)
            pattern.endObject()
            pattern.endArray()
            bindings.append(pattern.string)
            conditions.append(
                "(new_transaction_ids::jsonb ? $\(idPlaceholder) OR conflicts::jsonb @> $\(bindings.count)::jsonb)")
        }
        var sql = "SELECT \(LedgerSchema.auditColumns) FROM ledger_audit"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY seq"
        if let limit = query.limit {
            bindings.append(Int64(max(0, limit)))
            sql += " LIMIT $\(bindings.count)"
        }
        let statement = PostgresQuery(unsafeSQL: sql, binds: bindings)
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query(statement, logger: logger)
            var entries: [AuditEntry] = []
            for try await row in rows.decode(
                (Int64, Int64, String, String, String, String?, String, String?, String, String).self)
            {
                entries.append(
                    AuditEntry(
                        sequence: row.0, time: ReceiptDate(clampingMillisecondsSince1970: row.1), endpoint: row.2,
                        receiptSHA256: row.3, verdict: row.4, reason: row.5, decidedBy: row.6, account: row.7,
                        newTransactionIDs: LedgerJSON.ids(column: row.8),
                        conflicts: LedgerJSON.conflicts(column: row.9)))
            }
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

    /// The connection a body of ``withDeadline(_:)`` holds, and whether the call was answered yet.
    private final class Call: Sendable {
        let connection = Mutex<PostgresConnection?>(nil)
        let answered = Mutex(false)
        let timer = Mutex<Task<Void, Never>?>(nil)

        /// `true` for the first caller only: whoever answers the call.
        func claim() -> Bool {
            answered.withLock { answered in
                defer { answered = true }
                return !answered
            }
        }
    }

    /// Runs `body` on a connection of the pool, giving up after ``deadline`` plus a grace of 2 s.
    ///
    /// The deadline itself is enforced by PostgreSQL: every session carries it as `statement_timeout` and
    /// `lock_timeout`, so a slow statement or a wait for the writer lock fails there and its transaction rolls
    /// back before the grace runs out, and the call fails with what it really did. The grace covers what the
    /// server cannot time: no connection to be had, or a server that stopped answering. Then the call is answered
    /// `ledger.unavailable` at once, the connection (if one is held) is closed and the body cancelled; only in that
    /// case can a commit have completed unseen (docs/ledger.md, "Deadlines").
    private func withDeadline<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        let client = client
        let limit = deadline + .seconds(2)
        let call = Call()
        return try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<T, any Error>) in
            let work = Task {
                do {
                    let value = try await client.withConnection { connection in
                        call.connection.withLock { $0 = connection }
                        defer { call.connection.withLock { $0 = nil } }
                        return try await body(connection)
                    }
                    if call.claim() { continuation.resume(returning: value) }
                } catch {
                    if call.claim() { continuation.resume(throwing: error) }
                }
                call.timer.withLock { $0?.cancel() }
            }
            let timer = Task {
                guard (try? await Task.sleep(for: limit)) != nil, call.claim() else { return }
                continuation.resume(
                    throwing: LedgerError(.unavailable, "the PostgreSQL ledger did not answer within \(limit)"))
                work.cancel()
                if let connection = call.connection.withLock({ $0 }) { try? await connection.close() }
            }
            call.timer.withLock { $0 = timer }
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

    private static func prefixed(_ columns: String) -> String {
        columns.split(separator: ", ").map { "t." + $0 }.joined(separator: ", ")
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
