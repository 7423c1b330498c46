/// What a verification naming another account than a purchase's owner gets.
public enum ConflictPolicy: String, Sendable, Hashable, CaseIterable {
    /// The verdict stays `valid` (the receipt is genuine); the answer lists the conflicts and whose they are.
    /// The receipt's other transactions are recorded as usual.
    case report
    /// The verification is refused: verdict `invalid`, reason `ledger.conflict`; nothing of the receipt is
    /// recorded or bound, only the audit entry.
    case reject
}
