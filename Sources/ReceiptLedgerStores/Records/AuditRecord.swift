@_spi(Fuzzing) import ReceiptLedger
import ReceiptModel
import ReceiptVerification

/// A `ledger_audit` row: one line of the append-only trail.
///
/// The verdict, reason and decider are typed in ``AuditEntry``; their texts exist only here, in the column: each
/// written as its raw value or description (the texts the trail always held) and read back with the same mapping.
struct AuditRecord: LedgerRecord {
    /// The columns, in the order the stores bind and read them.
    enum Column: String, LedgerColumn {
        case sequence = "seq"
        case time = "time_ms"
        case endpoint
        case receiptSHA256 = "receipt_sha256"
        case verdict
        case reason
        case decidedBy = "decided_by"
        case account
        case newTransactionIDs = "new_transaction_ids"
        case conflicts

        static let table = "ledger_audit"

        var type: LedgerColumnType {
            switch self {
            case .sequence, .time: .integer
            case .endpoint, .receiptSHA256, .verdict, .reason, .decidedBy, .account, .newTransactionIDs, .conflicts:
                .text
            }
        }

        /// All but the sequence: the database numbers the trail.
        static let inserted = allCases.filter { $0 != .sequence }
    }

    var entry: AuditEntry

    init(_ entry: AuditEntry) { self.entry = entry }

    func value(_ column: Column) -> LedgerValue {
        switch column {
        case .sequence: .integer(entry.sequence)
        case .time: .integer(entry.time.millisecondsSince1970)
        case .endpoint: .text(entry.endpoint)
        case .receiptSHA256: .text(entry.receiptSHA256)
        case .verdict: .text(entry.verdict.rawValue)
        case .reason: LedgerValue(entry.reason?.description)
        case .decidedBy: .text(entry.decidedBy.rawValue)
        case .account: LedgerValue(entry.account)
        case .newTransactionIDs: .text(LedgerColumnJSON.column(ids: entry.newTransactionIDs))
        case .conflicts: .text(LedgerColumnJSON.column(conflicts: entry.conflicts))
        }
    }

    init(reading row: some LedgerRow) throws {
        entry = AuditEntry(
            sequence: try row.required(integer: Column.sequence),
            time: ReceiptDate(clampingMillisecondsSince1970: try row.required(integer: Column.time)),
            endpoint: try row.required(text: Column.endpoint),
            receiptSHA256: try row.required(text: Column.receiptSHA256),
            verdict: try Self.typed(Verdict.Outcome.self, row, Column.verdict),
            reason: try row.text(Column.reason).map(AuditReason.init(column:)),
            decidedBy: try Self.typed(DecidedBy.self, row, Column.decidedBy),
            account: try row.text(Column.account),
            newTransactionIDs: try LedgerColumnJSON.ids(column: try row.required(text: Column.newTransactionIDs)),
            conflicts: try LedgerColumnJSON.conflicts(column: try row.required(text: Column.conflicts)))
    }

    /// A column that holds one of a closed set of words. The ledger has written nothing else, so another word is a
    /// hand-edited row: refused rather than read as a plausible value.
    private static func typed<Value: RawRepresentable<String>>(
        _: Value.Type, _ row: some LedgerRow, _ column: Column
    ) throws -> Value {
        let text = try row.required(text: column)
        guard let value = Value(rawValue: text) else {
            throw LedgerError(.unavailable, "ledger_audit.\(column.name) holds an unknown value")
        }
        return value
    }
}
