/// What the ledger holds about some subscriptions: their transactions and their renewal states.
public struct LedgerSubscriptions: Sendable, Hashable {
    public var transactions: [LedgerTransaction]
    public var renewals: [LedgerRenewal]

    public init(transactions: [LedgerTransaction] = [], renewals: [LedgerRenewal] = []) {
        self.transactions = transactions
        self.renewals = renewals
    }
}
