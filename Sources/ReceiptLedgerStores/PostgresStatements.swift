import PostgresNIO
import ReceiptLedger
@_spi(Fuzzing) import ReceiptModel

/// Every SQL text the PostgreSQL store runs, generated once from the tables' column lists (``LedgerColumn``).
/// A batch's rows go to the server as one JSON array of records (`jsonb_to_recordset`, typed by
/// ``LedgerColumn/recordDefinition``): one statement and one round trip per table and batch, whatever its size.
enum PostgresStatements {
    typealias Transaction = TransactionRecord.Column
    typealias Owner = OwnerRecord.Column
    typealias Renewal = RenewalRecord.Column
    typealias Notification = NotificationRecord.Column
    typealias Token = AccountTokenRecord.Column
    typealias Audit = AuditRecord.Column
    typealias Event = EventRecord.Column

    static let transactionsByID = "\(select(Transaction.self)) WHERE \(Transaction.transactionID.name) = ANY($1)"
    static let transactionsByIDOrOriginal = "\(transactionsByID) OR \(Transaction.originalTransactionID.name) = ANY($2)"
    /// The transaction `$1` with its owner's account (NULL when unbound).
    static let transactionWithOwner =
        "SELECT \(Transaction.list(prefix: "t.")), o.\(Owner.account.name) FROM \(Transaction.table) AS t "
        + "LEFT JOIN \(Owner.table) AS o ON o.\(Owner.originalTransactionID.name) = "
        + "t.\(Transaction.originalTransactionID.name) WHERE t.\(Transaction.transactionID.name) = $1"
    static let transactionsByOriginal =
        "\(select(Transaction.self)) WHERE \(Transaction.originalTransactionID.name) = ANY($1) "
        + "ORDER BY \(Transaction.transactionID.name)"
    static let transactionsOwnedBy =
        "\(select(Transaction.self)) WHERE \(Transaction.originalTransactionID.name) IN \(ownedBy) "
        + "ORDER BY \(Transaction.transactionID.name)"
    static let insertTransactions = insert(Transaction.self)
    /// Known transactions' changed facts: ``TransactionRecord/Column/updated``, `lastSeen` only moving forward.
    static let updateTransactions =
        "UPDATE \(Transaction.table) AS t SET "
        + Transaction.updated.map { column in
            column == .lastSeen
                ? "\(column.name) = GREATEST(t.\(column.name), x.\(column.name))" : "\(column.name) = x.\(column.name)"
        }.joined(separator: ", ") + " FROM \(recordset(Transaction.self)) "
        + "WHERE t.\(Transaction.transactionID.name) = x.\(Transaction.transactionID.name)"
    static let touchTransactions =
        "UPDATE \(Transaction.table) SET \(Transaction.lastSeen.name) = GREATEST(\(Transaction.lastSeen.name), $1) "
        + "WHERE \(Transaction.transactionID.name) = ANY($2)"

    static let insertOwners = insert(Owner.self)
    /// The original transaction ids bound to the account `$1`.
    private static let ownedBy =
        "(SELECT \(Owner.originalTransactionID.name) FROM \(Owner.table) WHERE \(Owner.account.name) = $1)"
    /// The key every row of ``ownersAndRenewals`` is about.
    static let originalKey = "key"
    /// Each of `$1`'s original transaction ids (``originalKey``) with its owner's account and its `ledger_renewals`
    /// row (every column NULL when none): a batch's owners and renewal states in one round trip.
    static let ownersAndRenewals =
        "SELECT k.\(originalKey), o.\(Owner.account.name), \(Renewal.list(prefix: "r.")) "
        + "FROM unnest($1::text[]) AS k(\(originalKey)) "
        + "LEFT JOIN \(Owner.table) o ON o.\(Owner.originalTransactionID.name) = k.\(originalKey) "
        + "LEFT JOIN \(Renewal.table) r ON r.\(Renewal.originalTransactionID.name) = k.\(originalKey)"

    static let renewalsByOriginal =
        "\(select(Renewal.self)) WHERE \(Renewal.originalTransactionID.name) = ANY($1) "
        + "ORDER BY \(Renewal.originalTransactionID.name)"
    static let renewalsOwnedBy =
        "\(select(Renewal.self)) WHERE \(Renewal.originalTransactionID.name) IN \(ownedBy) "
        + "ORDER BY \(Renewal.originalTransactionID.name)"
    /// Renewal states newer than those held replace them whole.
    static let upsertRenewals =
        insert(Renewal.self) + " ON CONFLICT (\(Renewal.originalTransactionID.name)) DO UPDATE SET "
        + Renewal.replaced.map { "\($0.name) = EXCLUDED.\($0.name)" }.joined(separator: ", ")

    static let notificationIDs =
        "SELECT \(Notification.id.name) FROM \(Notification.table) WHERE \(Notification.id.name) = ANY($1)"
    /// One notification, its values bound as parameters in ``LedgerColumn/inserted`` order.
    static let insertNotification =
        "INSERT INTO \(Notification.table) (\(Notification.list(Notification.inserted))) VALUES ("
        + Notification.inserted.map { "$\($0.parameter)" }.joined(separator: ", ") + ")"

    /// The greatest signed date among the V2 notifications about the app `$1` in the environment `$2`: the last
    /// entry of their range of `ledger_notifications_latest` (whose partial-index condition the WHERE clause states
    /// as a literal, so that every plan may use it).
    static let latestNotificationSignedDate =
        "SELECT \(Notification.signedDate.name) FROM \(Notification.table) "
        + "WHERE \(Notification.version.name) = '\(LedgerNotification.version2)' "
        + "AND \(Notification.bundleID.name) = $1 AND \(Notification.environment.name) = $2 "
        + "AND \(Notification.signedDate.name) IS NOT NULL "
        + "ORDER BY \(Notification.signedDate.name) DESC LIMIT 1"

    static let tokenOf = "\(select(Token.self)) WHERE \(Token.transactionID.name) = $1"
    static let insertTokens = insert(Token.self) + " ON CONFLICT (\(Token.transactionID.name)) DO NOTHING"

    static let insertAudits = insert(Audit.self)
    static let audits = select(Audit.self)
    static let auditSince = "\(Audit.time.name) >= $"
    static let auditAfter = "\(Audit.sequence.name) > $"
    static let auditAccount = "\(Audit.account.name) = $"
    /// The entries naming a transaction: `$id` new in them (`?`: a member of the JSON array), or `$pattern`
    /// (`[{"transaction_ids":[id]}]`) contained in their conflicts.
    static func auditTransaction(id: Int, pattern: Int) -> String {
        "(\(Audit.newTransactionIDs.name)::jsonb ? $\(id) OR \(Audit.conflicts.name)::jsonb @> $\(pattern)::jsonb)"
    }
    static let auditOrder = " ORDER BY \(Audit.sequence.name)"

    /// The receipt keys among `$1` (a text array) the ledger remembers (``LedgerReceiptKey``).
    static let knownReceipts = "SELECT receipt_key FROM ledger_receipts WHERE receipt_key = ANY($1)"
    /// The receipt keys among `$1` (distinct) the ledger remembers, each with the number of audit entries written:
    /// the records bound as `$3` (``records(_:capacity:)``) when it remembers all `$2` of them, none otherwise. One
    /// statement, so the count and the insert see one snapshot; a key once written is never removed. Its implicit
    /// transaction commits with `synchronous_commit` set to `$4` (`set_config(…, true)`, `SET LOCAL`'s function,
    /// lasts until that commit): `off` returns before the WAL flush, the promise SQLite's NORMAL commits make
    /// (`PostgresLedgerStore`).
    static let auditIfAllKnown =
        "WITH commit_level AS (SELECT set_config('synchronous_commit', $4, true)), "
        + "known AS (\(knownReceipts)), written AS (\(insert(Audit.self, from: 3)) "
        + "WHERE (SELECT count(*) FROM known) = $2 RETURNING 1) "
        + "SELECT receipt_key, (SELECT count(*) FROM written) FROM known CROSS JOIN commit_level"
    /// Remembers the receipt keys `$1` first recorded at the times `$2` (arrays of one length).
    static let insertReceipts =
        "INSERT INTO ledger_receipts (receipt_key, first_seen_ms) SELECT * FROM unnest($1::text[], $2::bigint[]) "
        + "ON CONFLICT (receipt_key) DO NOTHING"
    /// The batch's events bound as `$1` (``records(_:capacity:)``), inserted in the array's order: the sequence
    /// numbers them as they come (commit order: batches insert under the writer lock).
    ///
    /// Each is due no earlier than the latest pending event of its key already held: a key whose head waits out a
    /// retry's backoff keeps its later events out of the due order's way (``claimEvents``).
    static let insertEvents: String = {
        let values = Event.inserted.map { column in
            column == .nextAttempt
                ? "GREATEST(x.\(column.name), (SELECT p.\(column.name) FROM \(Event.table) AS p "
                    + "WHERE p.\(Event.key.name) = x.\(Event.key.name) AND p.\(Event.state.name) = \(pending) "
                    + "ORDER BY p.\(Event.sequence.name) DESC LIMIT 1))"
                : "x.\(column.name)"
        }
        return "INSERT INTO \(Event.table) (\(Event.list(Event.inserted))) SELECT \(values.joined(separator: ", ")) "
            + "FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS r(value, n), "
            + "LATERAL jsonb_to_record(r.value) AS x(\(Event.recordDefinition)) ORDER BY r.n"
    }()
    private static let pending = "'\(LedgerEvent.State.pending.rawValue)'"
    /// Leases to `$1` until `$2` up to `$4` events it may deliver at `$3`: pending, due, not under a live lease, and
    /// the first pending event of their key (an earlier pending one, leased or not, holds it back; read from the
    /// partial index `ledger_events_key`). In due order, the order of the index `ledger_events_due`: the scan stops
    /// once `$4` are found, rather than sorting every pending event.
    ///
    /// The heads are locked `FOR UPDATE SKIP LOCKED` in the statement that leases them: a replica claiming at the
    /// same time skips what this one locked, and one that reaches a head after this one committed re-checks the
    /// row as committed (READ COMMITTED), whose live lease excludes it. An event is leased to one at a time.
    static let claimEvents =
        "UPDATE \(Event.table) AS u SET \(Event.leaseOwner.name) = $1, \(Event.leaseUntil.name) = $2 FROM ("
        + "SELECT e.\(Event.sequence.name) FROM \(Event.table) AS e WHERE e.\(Event.state.name) = \(pending) "
        + "AND e.\(Event.nextAttempt.name) <= $3 "
        + "AND (e.\(Event.leaseUntil.name) IS NULL OR e.\(Event.leaseUntil.name) <= $3) "
        + "AND NOT EXISTS (SELECT 1 FROM \(Event.table) AS p WHERE p.\(Event.key.name) = e.\(Event.key.name) "
        + "AND p.\(Event.state.name) = \(pending) AND p.\(Event.sequence.name) < e.\(Event.sequence.name)) "
        + "ORDER BY e.\(Event.nextAttempt.name) LIMIT $4 FOR UPDATE OF e SKIP LOCKED) AS c "
        + "WHERE u.\(Event.sequence.name) = c.\(Event.sequence.name) RETURNING \(Event.list(prefix: "u."))"
    /// Settles the attempts bound as `$1` (a JSON array of `{"id", "outcome", "at", "error"}`, `outcome` `delivered`,
    /// `retry` or `failed`) that `$2` still leases, in one statement whatever their number: each counts an attempt and
    /// releases the lease; a retry is due again at `at` (its owner cleared), a delivery or a parking is settled at `at`.
    /// Then a retry's key's later pending events are due no earlier than it.
    static let settleEvents =
        "WITH s AS (UPDATE \(Event.table) AS u SET "
        + "\(Event.state.name) = CASE x.outcome WHEN 'retry' THEN u.\(Event.state.name) ELSE x.outcome END, "
        + "\(Event.attempts.name) = u.\(Event.attempts.name) + 1, "
        + "\(Event.settled.name) = CASE x.outcome WHEN 'retry' THEN u.\(Event.settled.name) ELSE x.at END, "
        + "\(Event.nextAttempt.name) = CASE x.outcome WHEN 'retry' THEN x.at ELSE u.\(Event.nextAttempt.name) END, "
        + "\(Event.lastError.name) = CASE x.outcome WHEN 'delivered' THEN u.\(Event.lastError.name) ELSE x.error END, "
        + "\(Event.leaseOwner.name) = CASE x.outcome WHEN 'retry' THEN NULL ELSE u.\(Event.leaseOwner.name) END, "
        + "\(Event.leaseUntil.name) = NULL "
        + "FROM jsonb_to_recordset($1::jsonb) AS x(id text, outcome text, at bigint, error text) "
        + "WHERE u.\(Event.id.name) = x.id AND u.\(Event.leaseOwner.name) = $2 AND u.\(Event.state.name) = \(pending) "
        + "RETURNING u.\(Event.key.name) AS k, u.\(Event.sequence.name) AS q, x.at, x.outcome) "
        // A retry holds its key's later events back until it is due: the due order does not walk them meanwhile.
        + "UPDATE \(Event.table) AS l SET \(Event.nextAttempt.name) = GREATEST(l.\(Event.nextAttempt.name), s.at) "
        + "FROM s WHERE s.outcome = 'retry' AND l.\(Event.key.name) = s.k AND l.\(Event.sequence.name) > s.q "
        + "AND l.\(Event.state.name) = \(pending)"
    static let events = select(Event.self)
    static let eventsFailed = "\(Event.state.name) = '\(LedgerEvent.State.failed.rawValue)'"
    static let eventsSince = "\(Event.created.name) >= $"
    static let eventOrder = " ORDER BY \(Event.sequence.name)"
    /// Queues again, due at `$1`: the WHERE clause follows (``requeueIDs`` or ``requeueFailed``).
    private static let requeue =
        "UPDATE \(Event.table) SET \(Event.state.name) = \(pending), "
        + "\(Event.nextAttempt.name) = $1, \(Event.maxAgeFrom.name) = $1, \(Event.leaseOwner.name) = NULL, "
        + "\(Event.leaseUntil.name) = NULL, \(Event.settled.name) = NULL WHERE "
    /// The events with the ids in `$2` that are not pending already (a pending one may be leased right now).
    static let requeueIDs =
        requeue + "\(Event.id.name) = ANY($2) AND \(Event.state.name) <> \(pending) RETURNING \(Event.sequence.name)"
    static let requeueFailed = requeue + eventsFailed + " RETURNING \(Event.sequence.name)"
    static let pendingEvents =
        "SELECT COUNT(*)::bigint, MIN(\(Event.created.name)) FROM \(Event.table) WHERE \(Event.state.name) = \(pending)"

    private static func select<Column: LedgerColumn>(_: Column.Type) -> String {
        "SELECT \(Column.list()) FROM \(Column.table)"
    }

    /// `jsonb_to_recordset($1::jsonb) AS x(…)`: the bound records (``records(_:)``) as rows.
    private static func recordset<Column: LedgerColumn>(_: Column.Type, from parameter: Int = 1) -> String {
        "jsonb_to_recordset($\(parameter)::jsonb) AS x(\(Column.recordDefinition))"
    }

    /// Inserts the records bound as `$parameter` (``records(_:capacity:)``).
    private static func insert<Column: LedgerColumn>(_: Column.Type, from parameter: Int = 1) -> String {
        "INSERT INTO \(Column.table) (\(Column.list(Column.inserted))) SELECT * FROM "
            + recordset(Column.self, from: parameter)
    }

    /// Records as the JSON array `jsonb_to_recordset` reads: one object per record, a member per inserted column
    /// (none for NULL).
    static func records<Record: LedgerRecord>(_ records: [Record], capacity: Int) -> String {
        let columns = Record.Column.inserted
        var writer = JSONWriter(capacity: 64 + capacity * records.count)
        writer.beginArray()
        for record in records {
            writer.beginObject()
            for column in columns {
                switch record.value(column) {
                case .text(let text): writer.field(column.name, text)
                case .integer(let integer): writer.field(column.name, integer)
                case .null: break
                }
            }
            writer.endObject()
        }
        writer.endArray()
        return writer.string
    }

    /// A record's inserted values as parameters `$1`…, in order.
    static func bindings<Record: LedgerRecord>(_ record: Record) -> PostgresBindings {
        var bindings = PostgresBindings()
        for column in Record.Column.inserted {
            switch record.value(column) {
            case .text(let text): bindings.append(text)
            case .integer(let integer): bindings.append(integer)
            case .null: bindings.appendNull()
            }
        }
        return bindings
    }
}
