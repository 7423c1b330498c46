/// What a store read, under its writer lock, about the keys of one batch (``LedgerKeys``): the transactions it
/// already holds, the owners of ``LedgerKeys/ownerIDs``, the renewal states of ``LedgerKeys/renewalIDs`` and the
/// notifications it already recorded.
public struct LedgerSnapshot: Sendable {
    /// Transaction id → the record held: for the batch's transaction ids, and every one under its
    /// ``LedgerKeys/subscriptionIDs``.
    public var transactions: [String: LedgerTransaction]
    /// Original transaction id → the account it is bound to.
    public var owners: [String: String]
    /// Original transaction id → the renewal state held for it.
    public var renewals: [String: LedgerRenewal] = [:]
    /// The notification ids among the batch's that the ledger already holds.
    public var notificationIDs: Set<String> = []

    public init(transactions: [String: LedgerTransaction] = [:], owners: [String: String] = [:]) {
        self.transactions = transactions
        self.owners = owners
    }
}
