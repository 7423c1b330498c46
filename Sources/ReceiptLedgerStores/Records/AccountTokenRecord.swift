import ReceiptLedger

/// A `ledger_account_tokens` row: a transaction's `appAccountToken`, written once.
struct AccountTokenRecord: LedgerRecord {
    /// The columns, in the order the stores bind and read them.
    enum Column: String, LedgerColumn {
        case transactionID = "transaction_id"
        case token = "app_account_token"

        static let inserted = allCases
        static let table = "ledger_account_tokens"

        var type: LedgerColumnType { .text }
    }

    var transactionID: String
    var token: String

    init(transactionID: String, token: String) {
        self.transactionID = transactionID
        self.token = token
    }

    func value(_ column: Column) -> LedgerValue {
        switch column {
        case .transactionID: .text(transactionID)
        case .token: .text(token)
        }
    }

    init(reading row: some LedgerRow) throws {
        transactionID = try row.required(text: Column.transactionID)
        token = try row.required(text: Column.token)
    }
}
