import GRDB

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

    /// Whether the ledger holds any subscription state a receipt cannot show.
    static let holdsSubscriptionState =
        "SELECT EXISTS (SELECT 1 FROM \(Renewal.table)) OR EXISTS (SELECT 1 FROM \(Notification.table)) "
        + "OR EXISTS (SELECT 1 FROM \(Token.table)) OR EXISTS (SELECT 1 FROM \(Transaction.table) "
        + "WHERE \(Transaction.source.name) IN ("
        + LedgerSource.beyondReceipts.map { "'\($0.rawValue)'" }.joined(separator: ", ") + "))"

    private static func select<Column: LedgerColumn>(_: Column.Type) -> String {
        "SELECT \(Column.list()) FROM \(Column.table)"
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
