import ReceiptLedger

/// The ledger's schema, as numbered migrations for each store's SQL dialect. A store applies the ones its
/// database lacks, in order, each in the transaction that records its number in `ledger_schema`, under the
/// store's writer lock (so replicas starting together migrate once). A database whose schema is newer than
/// this build refuses to open (`ledger.migration_failed`).
///
/// Version 1:
/// - `ledger_transactions`: one row per transaction id (primary key: each id inserted once, ever).
/// - `ledger_owners`: one row per original transaction id (primary key: one owner, never rebound).
/// - `ledger_audit`: the append-only trail; triggers refuse every update and delete (and, on PostgreSQL,
///   truncation).
/// Version 2 (StoreKit 2 and App Store Server Notifications):
/// - `ledger_renewals`: one row per original transaction id, the latest verified renewal info by `signed_date_ms`.
/// - `ledger_notifications`: one row per notification id (primary key: a retry is recorded once), V1's unsigned
///   members kept as unverified hints.
/// - `ledger_account_tokens`: a transaction's `appAccountToken`, written once.
/// Version 3 (new to whom):
/// - `ledger_transactions.reported_to_owner` and `reported_without_account`: whether the transaction was reported
///   new to its purchase's owner, and to a verification naming no account (1 for rows written before, which the
///   earlier rule reported new once already).
/// Version 4 (which app and environment a notification is about, for backfilling missed notifications):
/// - `ledger_notifications.bundle_id` and `environment`: V2's signed `bundleId` and `environment`; NULL for V1 and
///   for rows written before.
/// - `ledger_notifications_latest`: V2 rows by app, environment and signed date (a partial index: V1 rows are not
///   in it), so the latest signed date of an app's notifications in an environment is one index lookup.
/// Version 5 (events out, a transactional outbox):
/// - `ledger_events`: one row per event (``LedgerEvent``), written in the transaction of the facts that cause it.
///   `seq` numbers them in commit order (SQLite `AUTOINCREMENT`, PostgreSQL `bigserial`, assigned under the writer
///   lock); `event_id` is the receivers' deduplication key. `ledger_events_due` finds what is pending and due,
///   `ledger_events_key` (of pending events only) a key's earliest pending event (the head that holds the key's later events back),
///   `ledger_events_created` lists by creation time.
/// Version 6 (a repeat sighting of a receipt at the cost of one lookup):
/// - `ledger_receipts`: one row per receipt recorded whole for an audience (``LedgerReceiptKey``), with when it was
///   first recorded. Derived from the facts beside it, written in their transaction; a lost row only costs the next
///   sighting of that receipt a full recording.
/// Dates are milliseconds since 1970 (UTC), as Apple writes them.
enum LedgerSchema {
    enum Dialect { case sqlite, postgres }

    /// The migrations, oldest first; index + 1 is the version.
    static func migrations(_ dialect: Dialect) -> [[String]] {
        [version1(dialect), version2(dialect), version3(dialect), version4(), version5(dialect), version6(dialect)]
    }

    static var latestVersion: Int { migrations(.sqlite).count }

    private static func version1(_ dialect: Dialect) -> [String] {
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        let sequence =
            dialect == .sqlite
            ? "seq INTEGER PRIMARY KEY AUTOINCREMENT" : "seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
        var statements = [
            """
            CREATE TABLE ledger_transactions (
                transaction_id TEXT PRIMARY KEY NOT NULL,
                original_transaction_id TEXT NOT NULL,
                product_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                bundle_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                purchase_date_ms \(integer),
                expires_date_ms \(integer),
                cancellation_date_ms \(integer),
                web_order_line_item_id TEXT,
                source TEXT NOT NULL,
                first_seen_ms \(integer) NOT NULL,
                last_seen_ms \(integer) NOT NULL
            )
            """,
            "CREATE INDEX ledger_transactions_original ON ledger_transactions (original_transaction_id)",
            """
            CREATE TABLE ledger_owners (
                original_transaction_id TEXT PRIMARY KEY NOT NULL,
                account TEXT NOT NULL,
                bound_ms \(integer) NOT NULL
            )
            """,
            "CREATE INDEX ledger_owners_account ON ledger_owners (account)",
            """
            CREATE TABLE ledger_audit (
                \(sequence),
                time_ms \(integer) NOT NULL,
                endpoint TEXT NOT NULL,
                receipt_sha256 TEXT NOT NULL,
                verdict TEXT NOT NULL,
                reason TEXT,
                decided_by TEXT NOT NULL,
                account TEXT,
                new_transaction_ids TEXT NOT NULL,
                conflicts TEXT NOT NULL
            )
            """,
            // One index on the trail: appending is the hot path; filters by account or transaction scan the rows
            // from --since on.
            "CREATE INDEX ledger_audit_time ON ledger_audit (time_ms)",
        ]
        switch dialect {
        case .sqlite:
            statements += [
                """
                CREATE TRIGGER ledger_audit_no_update BEFORE UPDATE ON ledger_audit
                BEGIN SELECT RAISE(ABORT, 'the ledger audit trail is append-only'); END
                """,
                """
                CREATE TRIGGER ledger_audit_no_delete BEFORE DELETE ON ledger_audit
                BEGIN SELECT RAISE(ABORT, 'the ledger audit trail is append-only'); END
                """,
            ]
        case .postgres:
            statements += [
                """
                CREATE FUNCTION ledger_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'the ledger audit trail is append-only'; END $$
                """,
                """
                CREATE TRIGGER ledger_audit_no_change BEFORE UPDATE OR DELETE ON ledger_audit
                FOR EACH ROW EXECUTE FUNCTION ledger_audit_append_only()
                """,
                """
                CREATE TRIGGER ledger_audit_no_truncate BEFORE TRUNCATE ON ledger_audit
                FOR EACH STATEMENT EXECUTE FUNCTION ledger_audit_append_only()
                """,
            ]
        }
        return statements
    }

    private static func version2(_ dialect: Dialect) -> [String] {
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        return [
            // When Apple signed the latest statement about the transaction (StoreKit 2 JWS); NULL for receipts.
            "ALTER TABLE ledger_transactions ADD COLUMN signed_date_ms \(integer)",
            """
            CREATE TABLE ledger_renewals (
                original_transaction_id TEXT PRIMARY KEY NOT NULL,
                product_id TEXT,
                auto_renew_product_id TEXT,
                auto_renew_status \(integer),
                in_billing_retry \(integer),
                grace_period_expires_ms \(integer),
                expiration_intent \(integer),
                renewal_date_ms \(integer),
                offer_type \(integer),
                offer_identifier TEXT,
                environment TEXT NOT NULL,
                signed_date_ms \(integer) NOT NULL,
                updated_ms \(integer) NOT NULL
            )
            """,
            """
            CREATE TABLE ledger_notifications (
                notification_id TEXT PRIMARY KEY NOT NULL,
                version TEXT NOT NULL,
                notification_type TEXT NOT NULL,
                subtype TEXT,
                signed_date_ms \(integer),
                received_ms \(integer) NOT NULL,
                original_transaction_id TEXT,
                unverified_hints TEXT
            )
            """,
            """
            CREATE TABLE ledger_account_tokens (
                transaction_id TEXT PRIMARY KEY NOT NULL,
                app_account_token TEXT NOT NULL
            )
            """,
        ]
    }

    private static func version3(_ dialect: Dialect) -> [String] {
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        return [
            "ALTER TABLE ledger_transactions ADD COLUMN reported_to_owner \(integer) NOT NULL DEFAULT 1",
            "ALTER TABLE ledger_transactions ADD COLUMN reported_without_account \(integer) NOT NULL DEFAULT 1",
        ]
    }

    /// The same text in both dialects.
    private static func version4() -> [String] {
        // Nullable text columns (added without a default, so old rows read NULL and nothing is
        // rewritten), and a partial index that both SQLite and PostgreSQL use for a query whose WHERE clause states
        // `version = '2'` itself. The index leaves V1 rows out, and its last entry under an app and environment is
        // their latest signed date.
        [
            "ALTER TABLE ledger_notifications ADD COLUMN bundle_id TEXT",
            "ALTER TABLE ledger_notifications ADD COLUMN environment TEXT",
            "CREATE INDEX ledger_notifications_latest ON ledger_notifications (bundle_id, environment, signed_date_ms) "
                + "WHERE version = '2'",
        ]
    }

    private static func version5(_ dialect: Dialect) -> [String] {
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        let sequence = dialect == .sqlite ? "seq INTEGER PRIMARY KEY AUTOINCREMENT" : "seq BIGSERIAL PRIMARY KEY"
        return [
            """
            CREATE TABLE ledger_events (
                \(sequence),
                event_id TEXT NOT NULL UNIQUE,
                kind TEXT NOT NULL,
                event_key TEXT NOT NULL,
                created_ms \(integer) NOT NULL,
                body TEXT NOT NULL,
                state TEXT NOT NULL,
                attempts \(integer) NOT NULL DEFAULT 0,
                next_attempt_ms \(integer) NOT NULL,
                max_age_from_ms \(integer) NOT NULL,
                last_error TEXT,
                lease_owner TEXT,
                lease_until_ms \(integer),
                settled_ms \(integer)
            )
            """,
            "CREATE INDEX ledger_events_due ON ledger_events (state, next_attempt_ms)",
            // Partial: only pending events can hold a key back, and delivered ones pile up.
            "CREATE INDEX ledger_events_key ON ledger_events (event_key, seq) WHERE state = 'pending'",
            "CREATE INDEX ledger_events_created ON ledger_events (created_ms)",
        ]
    }

    private static func version6(_ dialect: Dialect) -> [String] {
        dialect == .sqlite
            ? [
                "CREATE TABLE ledger_receipts (receipt_key TEXT PRIMARY KEY NOT NULL, first_seen_ms INTEGER NOT NULL) "
                    + "WITHOUT ROWID"
            ]
            : ["CREATE TABLE ledger_receipts (receipt_key TEXT PRIMARY KEY NOT NULL, first_seen_ms BIGINT NOT NULL)"]
    }

    /// The table of applied versions, created before anything else.
    static func versionTable(_ dialect: Dialect) -> String {
        let integer = dialect == .sqlite ? "INTEGER" : "BIGINT"
        return
            "CREATE TABLE IF NOT EXISTS ledger_schema (version INTEGER PRIMARY KEY NOT NULL, applied_ms \(integer) NOT NULL)"
    }

    /// The database's own clock in milliseconds, for the migration record only (bookkeeping for operators,
    /// never used in a decision).
    static func databaseNow(_ dialect: Dialect) -> String {
        dialect == .sqlite
            ? "CAST(strftime('%s', 'now') AS INTEGER) * 1000" : "(extract(epoch FROM now()) * 1000)::bigint"
    }
}
