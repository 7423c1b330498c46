/// A purchase a verification named another account for: the original transaction id, the account it is
/// bound to, and the receipt's transaction ids under it.
public struct LedgerConflict: Sendable, Hashable {
    public var originalTransactionID: String
    /// The account the original transaction id is bound to (not the one that asked).
    public var owner: String
    public var transactionIDs: [String]

    public init(originalTransactionID: String, owner: String, transactionIDs: [String]) {
        self.originalTransactionID = originalTransactionID
        self.owner = owner
        self.transactionIDs = transactionIDs
    }
}
