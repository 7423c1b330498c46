public import ReceiptModel

/// What an account is entitled to at an instant, computed from the ledger's transactions bound to it.
///
/// Per purchase (original transaction id), counting only transactions purchased at or before the instant:
/// - consumables: never an entitlement;
/// - auto-renewable subscriptions (and purchases of unknown kind that carry an expiry): by the transaction
///   with the latest expiry: `revoked` when it was cancelled at or before the instant, `active` while it has
///   not expired, else `expired`;
/// - non-consumables, non-renewing subscriptions and purchases of unknown kind without an expiry: `revoked`
///   once any of their transactions was cancelled, else `active`.
public enum Entitlements {
    public static func compute(_ transactions: [LedgerTransaction], at instant: ReceiptDate) -> [Entitlement] {
        var purchases: [String: [LedgerTransaction]] = [:]
        for transaction in transactions where (transaction.purchaseDate ?? instant) <= instant {
            purchases[transaction.originalTransactionID, default: []].append(transaction)
        }
        return purchases.keys.sorted().compactMap { original in
            guard let group = purchases[original] else { return nil }
            return entitlement(original, group, at: instant)
        }
    }

    private static func entitlement(_ original: String, _ group: [LedgerTransaction], at instant: ReceiptDate)
        -> Entitlement?
    {
        let kind = group.map(\.kind).first { $0 != .unknown } ?? .unknown
        let cancelled = { (transaction: LedgerTransaction) in
            transaction.cancellationDate.map { $0 <= instant } ?? false
        }
        if kind == .consumable { return nil }
        let dated = group.compactMap { transaction in transaction.expiresDate.map { ($0, transaction) } }
        if kind == .autoRenewable || (kind == .unknown && !dated.isEmpty) {
            guard
                let (expiry, latest) = dated.max(by: { ($0.0, $0.1.transactionID) < ($1.0, $1.1.transactionID) })
            else { return nil }
            let state: Entitlement.State = cancelled(latest) ? .revoked : (expiry > instant ? .active : .expired)
            return Entitlement(
                productID: latest.productID, originalTransactionID: original, kind: kind, state: state,
                expiresDate: expiry)
        }
        let first = group.min {
            (($0.purchaseDate ?? instant), $0.transactionID) < (($1.purchaseDate ?? instant), $1.transactionID)
        }
        guard let first else { return nil }
        return Entitlement(
            productID: first.productID, originalTransactionID: original, kind: kind,
            state: group.contains(where: cancelled) ? .revoked : .active, expiresDate: nil)
    }
}
