package import ReceiptModel

/// What an account is entitled to at an instant, computed from the ledger's transactions bound to it.
///
/// Per purchase (original transaction id), counting only transactions purchased at or before the instant:
/// - consumables: never an entitlement;
/// - auto-renewable subscriptions (and purchases of unknown kind that carry an expiry): by the transaction
///   with the latest expiry: `revoked` when it was cancelled at or before the instant, `active` while it has
///   not expired; once expired, by the subscription's verified renewal info (StoreKit 2 JWS, notifications):
///   `grace_period` while Apple retries the payment and the grace period has not ended, `billing_retry` while it
///   retries after that (or without one), else `expired`;
/// - non-consumables, non-renewing subscriptions and purchases of unknown kind without an expiry: `revoked`
///   once any of their transactions was cancelled, else `active`.
package enum Entitlements {
    package static func compute(
        _ transactions: [LedgerTransaction], renewals: [LedgerRenewal] = [], at instant: ReceiptDate
    ) -> [Entitlement] {
        var renewalByOriginal: [String: LedgerRenewal] = [:]
        for renewal in renewals { renewalByOriginal[renewal.originalTransactionID] = renewal }
        var purchases: [String: [LedgerTransaction]] = [:]
        for transaction in transactions where (transaction.purchaseDate ?? instant) <= instant {
            purchases[transaction.originalTransactionID, default: []].append(transaction)
        }
        return purchases.keys.sorted().compactMap { original in
            guard let group = purchases[original] else { return nil }
            return entitlement(original, group, renewal: renewalByOriginal[original], at: instant)
        }
    }

    private static func entitlement(
        _ original: String, _ group: [LedgerTransaction], renewal: LedgerRenewal?, at instant: ReceiptDate
    ) -> Entitlement? {
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
            var state: Entitlement.State = cancelled(latest) ? .revoked : (expiry > instant ? .active : .expired)
            var grace: ReceiptDate?
            if state == .expired, let renewal, renewal.isInBillingRetryPeriod == true {
                if let end = renewal.gracePeriodExpiresDate, end > instant {
                    state = .gracePeriod
                    grace = end
                } else {
                    state = .billingRetry
                }
            }
            var entitlement = Entitlement(
                productID: latest.productID, originalTransactionID: original, kind: kind, state: state,
                expiresDate: expiry)
            entitlement.bundleID = latest.bundleID
            entitlement.environment = latest.environment
            entitlement.autoRenewStatus = renewal?.autoRenewStatus
            entitlement.autoRenewProductID = renewal?.autoRenewProductID
            entitlement.gracePeriodExpiresDate = grace
            return entitlement
        }
        let first = group.min {
            (($0.purchaseDate ?? instant), $0.transactionID) < (($1.purchaseDate ?? instant), $1.transactionID)
        }
        guard let first else { return nil }
        var entitlement = Entitlement(
            productID: first.productID, originalTransactionID: original, kind: kind,
            state: group.contains(where: cancelled) ? .revoked : .active, expiresDate: nil)
        entitlement.bundleID = first.bundleID
        entitlement.environment = first.environment
        return entitlement
    }
}
