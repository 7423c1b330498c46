import ReceiptLedger
import ReceiptModel

/// A `ledger_notifications` row: one App Store Server Notification, recorded once.
struct NotificationRecord: LedgerRecord {
    /// The columns, in the order the stores bind and read them.
    enum Column: String, LedgerColumn {
        case id = "notification_id"
        case version
        case notificationType = "notification_type"
        case subtype
        case signedDate = "signed_date_ms"
        case received = "received_ms"
        case originalTransactionID = "original_transaction_id"
        case unverifiedHints = "unverified_hints"
        /// Schema version 4: NULL for V1 and for rows written before.
        case bundleID = "bundle_id"
        /// Schema version 4: the environment's raw value, NULL for none (V1, rows written before).
        case environment

        static let inserted = allCases
        static let table = "ledger_notifications"

        var type: LedgerColumnType {
            switch self {
            case .id, .version, .notificationType, .subtype, .originalTransactionID, .unverifiedHints, .bundleID,
                .environment:
                .text
            case .signedDate, .received: .integer
            }
        }
    }

    var notification: LedgerNotification

    init(_ notification: LedgerNotification) { self.notification = notification }

    func value(_ column: Column) -> LedgerValue {
        switch column {
        case .id: .text(notification.id)
        case .version: .text(notification.version)
        case .notificationType: .text(notification.notificationType)
        case .subtype: LedgerValue(notification.subtype)
        case .signedDate: LedgerValue(notification.signedDate?.millisecondsSince1970)
        case .received: .integer(notification.received.millisecondsSince1970)
        case .originalTransactionID: LedgerValue(notification.originalTransactionID)
        case .unverifiedHints: LedgerValue(notification.unverifiedHints)
        case .bundleID: LedgerValue(notification.bundleID)
        case .environment: LedgerValue(EnvironmentColumn.nullableText(notification.environment))
        }
    }

    init(reading row: some LedgerRow) throws {
        notification = LedgerNotification(
            id: try row.required(text: Column.id), version: try row.required(text: Column.version),
            notificationType: try row.required(text: Column.notificationType), subtype: try row.text(Column.subtype),
            signedDate: TransactionRecord.date(try row.integer(Column.signedDate)),
            received: ReceiptDate(clampingMillisecondsSince1970: try row.required(integer: Column.received)),
            originalTransactionID: try row.text(Column.originalTransactionID),
            unverifiedHints: try row.text(Column.unverifiedHints), bundleID: try row.text(Column.bundleID),
            environment: try row.text(Column.environment).flatMap(EnvironmentColumn.environment))
    }
}
