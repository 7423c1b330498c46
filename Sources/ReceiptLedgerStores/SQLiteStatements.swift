import GRDB
import ReceiptLedger

/// Every SQL text the SQLite store runs, generated once from the tables' column lists (``LedgerColumn``).
/// A set of ids is bound as one JSON array text and read with `json_each`, so that each statement has one text
/// whatever the set's size (and GRDB's statement cache keeps it prepared).
enum SQLiteStatements {
    typealias Transaction = TransactionRecord.Column
    typealias Owner = OwnerRecord.Column
    typealias Renewal = RenewalRecord.Column
    typealias Notification = NotificationRecord.Column
    typealias Token = AccountTokenRecord.Column
    typealias Audit = AuditRecord.Column
    typealias Event = EventRecord.Column

    /// `IN (SELECT value FROM json_each(?))`: membership in a bound JSON array of ids.
    private static let inIDs = "IN (SELECT value FROM json_each(?))"

    static let transactionsByID =
        "\(select(Transaction.self)) WHERE \(Transaction.transactionID.name) \(inIDs)"
    static let transactionsByIDOrOriginal =
        "\(transactionsByID) OR \(Transaction.originalTransactionID.name) \(inIDs)"
    static let transactionByID = "\(select(Transaction.self)) WHERE \(Transaction.transactionID.name) = ?"
    static let transactionsByOriginal =
        "\(select(Transaction.self)) WHERE \(Transaction.originalTransactionID.name) \(inIDs) "
        + "ORDER BY \(Transaction.transactionID.name)"
    static let transactionsOwnedBy =
        "\(select(Transaction.self)) WHERE \(Transaction.originalTransactionID.name) IN \(ownedBy) "
        + "ORDER BY \(Transaction.transactionID.name)"
    static let insertTransaction = insert(Transaction.self)
    /// The update of a known transaction binds every column, as an insert does (the first sighting is bound and
    /// unused): ``TransactionRecord/Column/updated``, `lastSeen` only moving forward.
    static let updateTransaction =
        "UPDATE \(Transaction.table) SET "
        + Transaction.updated.map { column in
            column == .lastSeen
                ? "\(column.name) = MAX(\(column.name), ?\(column.parameter))" : "\(column.name) = ?\(column.parameter)"
        }.joined(separator: ", ") + " WHERE \(Transaction.transactionID.name) = ?\(Transaction.transactionID.parameter)"
    static let touchTransactions =
        "UPDATE \(Transaction.table) SET \(Transaction.lastSeen.name) = MAX(\(Transaction.lastSeen.name), ?) "
        + "WHERE \(Transaction.transactionID.name) \(inIDs)"

    static let ownersByOriginal = "\(select(Owner.self)) WHERE \(Owner.originalTransactionID.name) \(inIDs)"
    static let ownerOf = "\(select(Owner.self)) WHERE \(Owner.originalTransactionID.name) = ?"
    static let insertOwner = insert(Owner.self)
    /// The original transaction ids bound to the account `?`.
    private static let ownedBy =
        "(SELECT \(Owner.originalTransactionID.name) FROM \(Owner.table) WHERE \(Owner.account.name) = ?)"

    static let renewalsByOriginal = "\(select(Renewal.self)) WHERE \(Renewal.originalTransactionID.name) \(inIDs)"
    static let renewalsOwnedBy =
        "\(select(Renewal.self)) WHERE \(Renewal.originalTransactionID.name) IN \(ownedBy) "
        + "ORDER BY \(Renewal.originalTransactionID.name)"
    static let replaceRenewal = insert(Renewal.self, verb: "INSERT OR REPLACE")

    static let notificationIDs =
        "SELECT \(Notification.id.name) FROM \(Notification.table) WHERE \(Notification.id.name) \(inIDs)"
    static let insertNotification = insert(Notification.self)
    /// The greatest signed date among the V2 notifications about the app `?` in the environment `?`: the last entry
    /// of their range of `ledger_notifications_latest` (whose partial-index condition the WHERE clause states).
    static let latestNotificationSignedDate =
        "SELECT \(Notification.signedDate.name) FROM \(Notification.table) "
        + "WHERE \(Notification.version.name) = '\(LedgerNotification.version2)' "
        + "AND \(Notification.bundleID.name) = ? AND \(Notification.environment.name) = ? "
        + "AND \(Notification.signedDate.name) IS NOT NULL "
        + "ORDER BY \(Notification.signedDate.name) DESC LIMIT 1"

    static let tokenOf = "\(select(Token.self)) WHERE \(Token.transactionID.name) = ?"
    static let insertToken = insert(Token.self, verb: "INSERT OR IGNORE")

    static let insertAudit = insert(Audit.self)
    static let audits = select(Audit.self)
    static let auditSince = "\(Audit.time.name) >= ?"
    static let auditAfter = "\(Audit.sequence.name) > ?"
    static let auditAccount = "\(Audit.account.name) = ?"
    /// The entries naming transaction `?` (bound twice): new in them, or under one of their conflicts.
    static let auditTransaction =
        "(EXISTS (SELECT 1 FROM json_each(\(Audit.newTransactionIDs.name)) WHERE value = ?) OR EXISTS (SELECT 1 FROM "
        + "json_each(\(Audit.conflicts.name)) AS c, json_each(c.value, '$.transaction_ids') AS t WHERE t.value = ?))"
    static let auditOrder = " ORDER BY \(Audit.sequence.name)"

    /// The receipt keys among `?` (a JSON array) the ledger remembers (``LedgerReceiptKey``).
    static let knownReceipts = "SELECT receipt_key FROM ledger_receipts WHERE receipt_key \(inIDs)"
    /// Remembers a receipt key (`?1`) first recorded at `?2`.
    static let insertReceipt = "INSERT OR IGNORE INTO ledger_receipts (receipt_key, first_seen_ms) VALUES (?1, ?2)"
    /// Inserts an event (``LedgerColumn/inserted`` bound in order), due no earlier than the latest pending event of
    /// its key: a key whose head waits out a retry's backoff keeps its later events out of the due order's way
    /// (``claimableEvents``), so claiming does not walk them while the receiver is down.
    static let insertEvent: String = {
        let columns = Event.inserted
        let values = columns.map { column in
            column == .nextAttempt
                ? "MAX(?\(column.parameter), COALESCE((\(latestPendingDue("?\(Event.key.parameter)"))), 0))"
                : "?\(column.parameter)"
        }
        return "INSERT INTO \(Event.table) (\(Event.list(columns))) VALUES (\(values.joined(separator: ", ")))"
    }()
    /// The next attempt of the latest pending event of the key `key`; none when the key has no pending event.
    private static func latestPendingDue(_ key: String) -> String {
        "SELECT p.\(Event.nextAttempt.name) FROM \(Event.table) AS p WHERE p.\(Event.key.name) = \(key) "
            + "AND p.\(Event.state.name) = '\(LedgerEvent.State.pending.rawValue)' ORDER BY p.\(Event.sequence.name) DESC LIMIT 1"
    }
    /// The events ``SQLiteLedgerStore/settleAndClaimEvents(settling:owner:now:leaseUntil:limit:)`` may lease at `?1`
    /// (at most `?2`): pending, due, not under a live lease, and the first pending event of their key
    /// (``pendingHead``). In due order, the order of the index `ledger_events_due` (then commit order): the scan
    /// stops after `?2` found, rather than sorting every pending event.
    static let claimableEvents =
        "\(select(Event.self, alias: "e")) WHERE e.\(Event.state.name) = '\(LedgerEvent.State.pending.rawValue)' "
        + "AND e.\(Event.nextAttempt.name) <= ?1 "
        + "AND (e.\(Event.leaseUntil.name) IS NULL OR e.\(Event.leaseUntil.name) <= ?1) AND \(pendingHead) "
        + "ORDER BY e.\(Event.nextAttempt.name), e.\(Event.sequence.name) LIMIT ?2"
    /// No earlier pending event of the same key (leased or not, due or not) holds `e` back; parked and delivered
    /// ones do not. Read from the partial index `ledger_events_key`, whose condition it states.
    static let pendingHead =
        "NOT EXISTS (SELECT 1 FROM \(Event.table) AS p WHERE p.\(Event.key.name) = e.\(Event.key.name) "
        + "AND p.\(Event.state.name) = '\(LedgerEvent.State.pending.rawValue)' "
        + "AND p.\(Event.sequence.name) < e.\(Event.sequence.name))"
    /// After event `?2` was settled to be tried again at `?1`: the later pending events of its key are due no earlier
    /// (they wait for it anyway), so that the due order does not walk them while it waits.
    static let holdBackLaterEvents =
        "UPDATE \(Event.table) SET \(Event.nextAttempt.name) = MAX(\(Event.nextAttempt.name), ?1) "
        + "WHERE \(Event.state.name) = '\(LedgerEvent.State.pending.rawValue)' "
        + "AND \(Event.key.name) = (SELECT \(Event.key.name) FROM \(Event.table) WHERE \(Event.id.name) = ?2) "
        + "AND \(Event.sequence.name) > (SELECT \(Event.sequence.name) FROM \(Event.table) WHERE \(Event.id.name) = ?2)"
    /// Leases the events whose ids are in `?3` to `?1` until `?2`.
    static let leaseEvents =
        "UPDATE \(Event.table) SET \(Event.leaseOwner.name) = ?1, \(Event.leaseUntil.name) = ?2 "
        + "WHERE \(Event.id.name) \(inIDs)"
    /// The condition of a settlement: event `?2`, still pending, leased to `?3`.
    private static let leasedTo =
        " WHERE \(Event.id.name) = ?2 AND \(Event.leaseOwner.name) = ?3 "
        + "AND \(Event.state.name) = '\(LedgerEvent.State.pending.rawValue)'"
    /// Delivered at `?1`.
    static let settleDelivered =
        "UPDATE \(Event.table) SET \(Event.state.name) = '\(LedgerEvent.State.delivered.rawValue)', "
        + "\(Event.attempts.name) = \(Event.attempts.name) + 1, \(Event.settled.name) = ?1, "
        + "\(Event.leaseUntil.name) = NULL" + leasedTo
    /// To be tried again at `?1`, after the error `?4`; the lease released.
    static let settleRetry =
        "UPDATE \(Event.table) SET \(Event.attempts.name) = \(Event.attempts.name) + 1, "
        + "\(Event.nextAttempt.name) = ?1, \(Event.lastError.name) = ?4, \(Event.leaseOwner.name) = NULL, "
        + "\(Event.leaseUntil.name) = NULL" + leasedTo
    /// Parked at `?1` after the error `?4`.
    static let settleFailed =
        "UPDATE \(Event.table) SET \(Event.state.name) = '\(LedgerEvent.State.failed.rawValue)', "
        + "\(Event.attempts.name) = \(Event.attempts.name) + 1, \(Event.settled.name) = ?1, "
        + "\(Event.lastError.name) = ?4, \(Event.leaseUntil.name) = NULL" + leasedTo
    static let events = select(Event.self)
    static let eventsFailed = "\(Event.state.name) = '\(LedgerEvent.State.failed.rawValue)'"
    static let eventsSince = "\(Event.created.name) >= ?"
    static let eventOrder = " ORDER BY \(Event.sequence.name) LIMIT ?"
    /// Queues again, due at `?1`: what follows is the WHERE clause (``requeueIDs`` or ``requeueFailed``).
    static let requeue =
        "UPDATE \(Event.table) SET \(Event.state.name) = '\(LedgerEvent.State.pending.rawValue)', "
        + "\(Event.nextAttempt.name) = ?1, \(Event.maxAgeFrom.name) = ?1, \(Event.leaseOwner.name) = NULL, "
        + "\(Event.leaseUntil.name) = NULL, \(Event.settled.name) = NULL WHERE "
    /// The events with the ids in `?2` that are not pending already (a pending one may be leased right now).
    static let requeueIDs =
        requeue + "\(Event.id.name) \(inIDs) AND \(Event.state.name) <> '\(LedgerEvent.State.pending.rawValue)'"
    static let requeueFailed = requeue + eventsFailed
    static let pendingEvents =
        "SELECT COUNT(*), MIN(\(Event.created.name)) FROM \(Event.table) "
        + "WHERE \(Event.state.name) = '\(LedgerEvent.State.pending.rawValue)'"

    /// Whether the ledger holds any subscription state a receipt cannot show.
    static let holdsSubscriptionState =
        "SELECT EXISTS (SELECT 1 FROM \(Renewal.table)) OR EXISTS (SELECT 1 FROM \(Notification.table)) "
        + "OR EXISTS (SELECT 1 FROM \(Token.table)) OR EXISTS (SELECT 1 FROM \(Transaction.table) "
        + "WHERE \(Transaction.source.name) IN ("
        + LedgerSource.beyondReceipts.map { "'\($0.rawValue)'" }.joined(separator: ", ") + "))"

    private static func select<Column: LedgerColumn>(_: Column.Type) -> String {
        "SELECT \(Column.list()) FROM \(Column.table)"
    }

    /// `SELECT a.x, a.y FROM table AS a`.
    private static func select<Column: LedgerColumn>(_: Column.Type, alias: String) -> String {
        "SELECT \(Column.list(prefix: alias + ".")) FROM \(Column.table) AS \(alias)"
    }

    /// `INSERT INTO table (columns) VALUES (?, …)`, binding ``LedgerColumn/inserted`` in order.
    private static func insert<Column: LedgerColumn>(_: Column.Type, verb: String = "INSERT") -> String {
        let columns = Column.inserted
        return "\(verb) INTO \(Column.table) (\(Column.list(columns))) VALUES ("
            + columns.map { _ in "?" }.joined(separator: ", ") + ")"
    }

    /// A record's ``LedgerColumn/inserted`` values, in order, as GRDB binds them.
    static func arguments<Record: LedgerRecord>(_ record: Record) -> StatementArguments {
        StatementArguments(Record.Column.inserted.map { record.value($0).databaseValue })
    }
}
