import ReceiptLedger
import ReceiptModel
import ReceiptVerification

/// A `ledger_transactions` row: one transaction as the stores write and read it.
struct TransactionRecord: LedgerRecord {
    /// The columns, in the order the stores bind and read them.
    enum Column: String, LedgerColumn {
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case kind
        case bundleID = "bundle_id"
        case environment
        case purchaseDate = "purchase_date_ms"
        case expiresDate = "expires_date_ms"
        case cancellationDate = "cancellation_date_ms"
        case webOrderLineItemID = "web_order_line_item_id"
        case source
        case firstSeen = "first_seen_ms"
        case lastSeen = "last_seen_ms"
        case signedDate = "signed_date_ms"
        case reportedToOwner = "reported_to_owner"
        case reportedWithoutAccount = "reported_without_account"

        static let inserted = allCases
        static let table = "ledger_transactions"

        var type: LedgerColumnType {
            switch self {
            case .transactionID, .originalTransactionID, .productID, .kind, .bundleID, .environment,
                .webOrderLineItemID, .source:
                .text
            case .purchaseDate, .expiresDate, .cancellationDate, .firstSeen, .lastSeen, .signedDate, .reportedToOwner,
                .reportedWithoutAccount:
                .integer
            }
        }

        /// The columns an update of a known transaction rewrites: all but the key and the first sighting (a signed
        /// statement may replace what an unsigned one recorded, ``LedgerTransaction/merged(with:)``); `lastSeen`
        /// only moves forward.
        static let updated = allCases.filter { $0 != .transactionID && $0 != .firstSeen }
    }

    var transaction: LedgerTransaction

    init(_ transaction: LedgerTransaction) { self.transaction = transaction }

    func value(_ column: Column) -> LedgerValue {
        switch column {
        case .transactionID: .text(transaction.transactionID)
        case .originalTransactionID: .text(transaction.originalTransactionID)
        case .productID: .text(transaction.productID)
        case .kind: .text(transaction.kind.rawValue)
        case .bundleID: .text(transaction.bundleID)
        case .environment: .text(EnvironmentColumn.text(transaction.environment))
        case .purchaseDate: LedgerValue(transaction.purchaseDate?.millisecondsSince1970)
        case .expiresDate: LedgerValue(transaction.expiresDate?.millisecondsSince1970)
        case .cancellationDate: LedgerValue(transaction.cancellationDate?.millisecondsSince1970)
        case .webOrderLineItemID: LedgerValue(transaction.webOrderLineItemID)
        case .source: .text(transaction.source.rawValue)
        case .firstSeen: .integer(transaction.firstSeen.millisecondsSince1970)
        case .lastSeen: .integer(transaction.lastSeen.millisecondsSince1970)
        case .signedDate: LedgerValue(transaction.signedDate?.millisecondsSince1970)
        case .reportedToOwner: LedgerValue(transaction.reportedToOwner)
        case .reportedWithoutAccount: LedgerValue(transaction.reportedWithoutAccount)
        }
    }

    init(reading row: some LedgerRow) throws {
        transaction = LedgerTransaction(
            transactionID: try row.required(text: Column.transactionID),
            originalTransactionID: try row.required(text: Column.originalTransactionID),
            productID: try row.required(text: Column.productID),
            kind: ProductKind(rawValue: try row.required(text: Column.kind)) ?? .unknown,
            bundleID: try row.required(text: Column.bundleID),
            environment: EnvironmentColumn.environment(try row.required(text: Column.environment)),
            purchaseDate: Self.date(try row.integer(Column.purchaseDate)),
            expiresDate: Self.date(try row.integer(Column.expiresDate)),
            cancellationDate: Self.date(try row.integer(Column.cancellationDate)),
            webOrderLineItemID: try row.text(Column.webOrderLineItemID),
            source: LedgerSource(rawValue: try row.required(text: Column.source)),
            firstSeen: ReceiptDate(clampingMillisecondsSince1970: try row.required(integer: Column.firstSeen)),
            lastSeen: ReceiptDate(clampingMillisecondsSince1970: try row.required(integer: Column.lastSeen)),
            signedDate: Self.date(try row.integer(Column.signedDate)),
            reportedToOwner: try row.required(integer: Column.reportedToOwner) != 0,
            reportedWithoutAccount: try row.required(integer: Column.reportedWithoutAccount) != 0)
    }

    /// A nullable milliseconds column.
    static func date(_ milliseconds: Int64?) -> ReceiptDate? {
        milliseconds.map { ReceiptDate(clampingMillisecondsSince1970: $0) }
    }
}
