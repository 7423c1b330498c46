import ReceiptVerification

/// The text an `environment` column holds (`ledger_transactions`, `ledger_renewals`): the environment's raw value,
/// or the empty text for none (the column is NOT NULL, and rows written before the type existed hold "").
enum EnvironmentColumn {
    static func text(_ environment: ReceiptEnvironment?) -> String { environment?.rawValue ?? "" }

    /// The environment a column's text names; `nil` for the empty text and for any text that is not one of
    /// ``ReceiptEnvironment``'s cases (only an older or hand-edited row: see ``LedgerTransaction/environment``).
    static func environment(_ text: String) -> ReceiptEnvironment? { ReceiptEnvironment(rawValue: text) }
}
