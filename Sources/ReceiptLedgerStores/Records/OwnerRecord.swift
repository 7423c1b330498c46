import ReceiptLedger
import ReceiptModel

/// A `ledger_owners` row: the account an original transaction id is bound to, once.
struct OwnerRecord: LedgerRecord {
    /// The columns, in the order the stores bind and read them.
    enum Column: String, LedgerColumn {
        case originalTransactionID = "original_transaction_id"
        case account
        case bound = "bound_ms"

        static let inserted = allCases
        static let table = "ledger_owners"

        var type: LedgerColumnType {
            switch self {
            case .originalTransactionID, .account: .text
            case .bound: .integer
            }
        }
    }

    var binding: LedgerChanges.Binding

    init(_ binding: LedgerChanges.Binding) { self.binding = binding }

    func value(_ column: Column) -> LedgerValue {
        switch column {
        case .originalTransactionID: .text(binding.originalTransactionID)
        case .account: .text(binding.account)
        case .bound: .integer(binding.time.millisecondsSince1970)
        }
    }

    init(reading row: some LedgerRow) throws {
        binding = LedgerChanges.Binding(
            originalTransactionID: try row.required(text: Column.originalTransactionID),
            account: try row.required(text: Column.account),
            time: ReceiptDate(clampingMillisecondsSince1970: try row.required(integer: Column.bound)))
    }
}
