public import ReceiptModel
public import ReceiptVerification

/// One line of the append-only audit trail: one per verification with the ledger on.
public struct AuditEntry: Sendable, Hashable {
    /// The entry's position in the trail (assigned by the store; 0 before it is written).
    public var sequence: Int64
    public var time: ReceiptDate
    public var endpoint: String
    public var receiptSHA256: String
    /// `valid`, `invalid` or `inconclusive`: after the ledger's own decision (`invalid` for a rejected conflict).
    public var verdict: Verdict.Outcome
    public var reason: AuditReason?
    public var decidedBy: DecidedBy
    public var account: String?
    public var newTransactionIDs: [String]
    public var conflicts: [LedgerConflict]

    public init(
        sequence: Int64 = 0, time: ReceiptDate, endpoint: String, receiptSHA256: String, verdict: Verdict.Outcome,
        reason: AuditReason?, decidedBy: DecidedBy, account: String?, newTransactionIDs: [String],
        conflicts: [LedgerConflict]
    ) {
        self.sequence = sequence
        self.time = time
        self.endpoint = endpoint
        self.receiptSHA256 = receiptSHA256
        self.verdict = verdict
        self.reason = reason
        self.decidedBy = decidedBy
        self.account = account
        self.newTransactionIDs = newTransactionIDs
        self.conflicts = conflicts
    }
}
