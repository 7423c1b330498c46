import ReceiptLedger

/// A value as a ledger column holds it: text, a 64-bit integer, or NULL. What a record (``LedgerRecord``) writes,
/// whatever the store: each store binds it in its own way.
enum LedgerValue: Sendable, Hashable {
    case text(String)
    case integer(Int64)
    case null

    init(_ text: String?) { self = text.map(LedgerValue.text) ?? .null }
    init(_ integer: Int64?) { self = integer.map(LedgerValue.integer) ?? .null }
    /// A flag, stored 1 or 0.
    init(_ flag: Bool?) { self = flag.map { .integer($0 ? 1 : 0) } ?? .null }
}
