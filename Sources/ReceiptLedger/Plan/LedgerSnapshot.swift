/// What a store read, under its writer lock, about the keys of one batch (``LedgerKeys``): the transactions it
/// already holds, the owners of ``LedgerKeys/ownerIDs``, the renewal states of ``LedgerKeys/renewalIDs`` and the
/// notifications it already recorded.
package struct LedgerSnapshot: Sendable {
    /// Transaction id → the record held: for the batch's transaction ids, and every one under its
    /// ``LedgerKeys/subscriptionIDs``.
    package var transactions: [String: LedgerTransaction]
    /// Original transaction id → the account it is bound to.
    package var owners: [String: String]
    /// Original transaction id → the renewal state held for it.
    package var renewals: [String: LedgerRenewal] = [:]
    /// The notification ids among the batch's that the ledger already holds.
    package var notificationIDs: Set<String> = []
    /// Each entry's ``LedgerReceiptKey`` (`nil` for none), in the batch's order.
    package var receiptKeys: [String?] = []
    /// The keys among ``receiptKeys`` the ledger remembers: those entries are answered without their transactions.
    package var knownReceipts: Set<String> = []

    package init(transactions: [String: LedgerTransaction] = [:], owners: [String: String] = [:]) {
        self.transactions = transactions
        self.owners = owners
    }
}
