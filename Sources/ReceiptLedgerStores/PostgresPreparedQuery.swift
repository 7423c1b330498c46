import PostgresNIO
import ReceiptLedger

/// A statement of ``PostgresStatements`` run prepared: parsed and planned once per connection (postgres-nio prepares
/// it on first use and keeps it), then only bound and executed. The statements a repeat sighting runs spent about as
/// long in the server's parser and planner as in their execution (`perf` of the cluster's backends under load).
///
/// A pooler in front of PostgreSQL must keep prepared statements per server connection (PgBouncer's transaction
/// mode does since 1.21, with `max_prepared_statements` set).
struct PostgresPreparedQuery<Text: PostgresPreparedText>: PostgresPreparedStatement {
    static var name: String { Text.name }
    static var sql: String { Text.sql }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

/// The SQL of one ``PostgresPreparedQuery``, and the name it is prepared under (unique, and within PostgreSQL's 63
/// bytes, which the type's own name would not be).
protocol PostgresPreparedText {
    static var name: String { get }
    static var sql: String { get }
}

extension PostgresStatements {
    enum AuditIfAllKnown: PostgresPreparedText {
        static let name = "ledger_audit_if_all_known"
        static var sql: String { auditIfAllKnown }
    }

    enum KnownReceipts: PostgresPreparedText {
        static let name = "ledger_known_receipts"
        static var sql: String { knownReceipts }
    }

    enum TransactionsByID: PostgresPreparedText {
        static let name = "ledger_transactions_by_id"
        static var sql: String { transactionsByID }
    }

    enum TransactionsByIDOrOriginal: PostgresPreparedText {
        static let name = "ledger_transactions_by_id_or_original"
        static var sql: String { transactionsByIDOrOriginal }
    }

    enum OwnersAndRenewals: PostgresPreparedText {
        static let name = "ledger_owners_and_renewals"
        static var sql: String { ownersAndRenewals }
    }

    enum InsertAudits: PostgresPreparedText {
        static let name = "ledger_insert_audits"
        static var sql: String { insertAudits }
    }

    enum InsertTransactions: PostgresPreparedText {
        static let name = "ledger_insert_transactions"
        static var sql: String { insertTransactions }
    }

    enum UpdateTransactions: PostgresPreparedText {
        static let name = "ledger_update_transactions"
        static var sql: String { updateTransactions }
    }

    enum TouchTransactions: PostgresPreparedText {
        static let name = "ledger_touch_transactions"
        static var sql: String { touchTransactions }
    }

    enum InsertOwners: PostgresPreparedText {
        static let name = "ledger_insert_owners"
        static var sql: String { insertOwners }
    }

    enum UpsertRenewals: PostgresPreparedText {
        static let name = "ledger_upsert_renewals"
        static var sql: String { upsertRenewals }
    }

    enum InsertTokens: PostgresPreparedText {
        static let name = "ledger_insert_tokens"
        static var sql: String { insertTokens }
    }

    enum InsertReceipts: PostgresPreparedText {
        static let name = "ledger_insert_receipts"
        static var sql: String { insertReceipts }
    }

    enum InsertEvents: PostgresPreparedText {
        static let name = "ledger_insert_events"
        static var sql: String { insertEvents }
    }
}
