import ReceiptLedger
import ReceiptRemote

/// How a verifyReceipt answer learns what the ledger knows beyond the receipt.
enum LedgerConsultation {
    /// It does not: no ledger, not a valid subscription receipt, or nothing the ledger may know more about.
    case none
    /// Read before deciding (the fallback would otherwise have asked Apple), and it knew more.
    case read(ReceiptSupplement)
    /// Read in the transaction that records the verification (``LedgerEntry/readsSubscriptions``): no read of its
    /// own, and it sees what the same commit wrote.
    case withRecord(ReceiptSubscriptions)

    /// What to answer with, once the verification is recorded with `outcome`.
    func supplement(after outcome: LedgerOutcome?) -> ReceiptSupplement? {
        switch self {
        case .none: return nil
        case .read(let supplement): return supplement
        case .withRecord(let subscriptions): return outcome?.subscriptions.flatMap(subscriptions.supplement)
        }
    }

    /// The original transaction ids the record reads back.
    var readsSubscriptions: [String] {
        guard case .withRecord(let subscriptions) = self else { return [] }
        return subscriptions.originalTransactionIDs
    }
}
