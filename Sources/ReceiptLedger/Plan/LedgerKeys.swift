/// What a store reads first for a batch, under its writer lock: everything ``LedgerPlan/decide(_:snapshot:)``
/// needs to see in a ``LedgerSnapshot``.
public struct LedgerKeys: Sendable, Hashable {
    /// The transactions the batch records: the store reads those it holds.
    public var transactionIDs: [String] = []
    /// The original transaction ids of the transactions verifications naming an account record: the store reads
    /// their owners (a verification without an account binds nothing and conflicts with no one).
    public var ownerIDs: [String] = []
    /// The original transaction ids of the batch's renewal states and of the subscriptions it reads back: the
    /// store reads their renewal states.
    public var renewalIDs: [String] = []
    /// The original transaction ids whose subscriptions entries read back (``LedgerEntry/readsSubscriptions``):
    /// the store reads *every* transaction it holds under them.
    public var subscriptionIDs: [String] = []
    /// The notifications the batch records: the store reads which it already holds.
    public var notificationIDs: [String] = []
}
