public import ReceiptLedger
public import ReceiptRemote

/// What the intake answers for an app receipt: the verdict that counts and who decided it, the verifyReceipt
/// status for it (computed once, for the call's contract), the ledger's outcome, and what the ledger knows beyond
/// the receipt.
public struct ReceiptAnswer: Sendable {
    /// The verdict that counts: `invalid` with `ledger.conflict` when the ledger refused a conflicting verification.
    public let result: AttributedVerdict
    /// verifyReceipt's status for ``result`` under the call's contract.
    public let status: Int
    /// The ledger's outcome; `nil` without a ledger.
    public let ledger: LedgerOutcome?
    /// Verified facts the ledger holds about the receipt's subscriptions beyond the receipt (verifyReceipt contract
    /// only); `nil` when it knows nothing more.
    public let supplement: ReceiptSupplement?
}
