/// What a store reads first for a batch, under its writer lock: everything ``LedgerPlan/decide(_:snapshot:)``
/// needs to see in a ``LedgerSnapshot``.
public struct LedgerKeys: Sendable, Hashable {
    /// The transactions the batch records: the store reads those it holds.
    public var transactionIDs: [String] = []
    /// The original transaction ids the batch touches or reads back: the store reads their owners and renewal
    /// states.
    public var originalTransactionIDs: [String] = []
    /// The original transaction ids whose subscriptions entries read back (``LedgerEntry/readsSubscriptions``):
    /// the store reads *every* transaction it holds under them.
    public var subscriptionIDs: [String] = []
    /// The notifications the batch records: the store reads which it already holds.
    public var notificationIDs: [String] = []
}
