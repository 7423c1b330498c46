import ReceiptLedger
import ReceiptVerification

/// The text an `environment` column holds: the environment's raw value. For none, `ledger_transactions` and
/// `ledger_renewals` hold the empty text (their column is NOT NULL, and rows written before the type existed hold
/// ""); `ledger_notifications` holds NULL (its column, of schema version 4, is NULL for V1 and older rows).
enum EnvironmentColumn {
    static func text(_ environment: ReceiptEnvironment?) -> String { environment?.rawValue ?? "" }

    /// The text of a nullable column (`ledger_notifications`): `nil` for none.
    static func nullableText(_ environment: ReceiptEnvironment?) -> String? { environment?.rawValue }

    /// The environment a column's text names; `nil` for the empty text and for any text that is not one of
    /// ``ReceiptEnvironment``'s cases (only an older or hand-edited row: see ``LedgerTransaction/environment``).
    static func environment(_ text: String) -> ReceiptEnvironment? { ReceiptEnvironment(rawValue: text) }
}
