/// What a store reads first for a batch, under its writer lock: everything ``LedgerPlan/decide(_:snapshot:)``
/// needs to see in a ``LedgerSnapshot``.
package struct LedgerKeys: Sendable, Hashable {
    /// The transactions the batch records: the store reads those it holds.
    package var transactionIDs: [String] = []
    /// The original transaction ids of the transactions verifications naming an account record: the store reads
    /// their owners (a verification without an account binds nothing and conflicts with no one).
    package var ownerIDs: [String] = []
    /// The original transaction ids of the batch's renewal states and of the subscriptions it reads back: the
    /// store reads their renewal states.
    package var renewalIDs: [String] = []
    /// The original transaction ids whose subscriptions entries read back (``LedgerEntry/readsSubscriptions``),
    /// and, when the batch records events, every one it touches (an entitlement is computed from its whole group):
    /// the store reads *every* transaction it holds under them.
    package var subscriptionIDs: [String] = []
    /// The notifications the batch records: the store reads which it already holds.
    package var notificationIDs: [String] = []
}
