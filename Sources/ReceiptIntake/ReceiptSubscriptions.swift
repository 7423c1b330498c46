public import ReceiptLedger
import ReceiptModel
@_spi(Fuzzing) public import ReceiptRemote
public import ReceiptVerification

/// A valid subscription receipt's side of the comparison with the ledger: its listed auto-renewable transactions
/// and, per subscription (original transaction id), its latest expiry.
///
/// The ledger *knows more* when it holds a transaction the receipt does not list that expires later than the
/// receipt's latest for that subscription, a refund of a transaction the receipt lists without one, or renewal info
/// Apple signed after the receipt was created. Nothing unverified ever reaches the answer: the ledger holds
/// transactions only from valid receipts, verified JWS and verified notifications.
public struct ReceiptSubscriptions: Sendable {
    var latestExpiry: [String: ReceiptDate] = [:]
    var listed: [String: InAppPurchase] = [:]
    var created: ReceiptDate

    /// `nil` unless `verdict` is a valid app receipt with auto-renewable purchases.
    public init?(_ verdict: Verdict) {
        guard verdict.isValid, case .appReceipt(let receipt)? = verdict.receipt else { return nil }
        created = receipt.payload.creationDate ?? ReceiptDate(clampingMillisecondsSince1970: 0)
        for purchase in receipt.payload.inAppPurchases where LatestReceiptInfo.isAutoRenewable(purchase) {
            guard let original = purchase.originalTransactionID ?? purchase.transactionID else { continue }
            if let id = purchase.transactionID { listed[id] = purchase }
            let expiry = purchase.expiresDate ?? ReceiptDate(clampingMillisecondsSince1970: 0)
            latestExpiry[original] = max(latestExpiry[original] ?? expiry, expiry)
        }
        guard !latestExpiry.isEmpty else { return nil }
    }

    /// The original transaction ids to ask the ledger about.
    public var originalTransactionIDs: [String] { latestExpiry.keys.sorted() }

    /// What `held` knows beyond the receipt, in verifyReceipt's terms; `nil` when nothing.
    public func supplement(_ held: LedgerSubscriptions) -> ReceiptSupplement? {
        var overrides: [String: LatestReceiptRecord] = [:]
        for transaction in held.transactions {
            guard let purchase = listed[transaction.transactionID] else { continue }
            if transaction.cancellationDate != nil, purchase.cancellationDate == nil {
                overrides[transaction.transactionID] = Self.record(transaction)
            }
        }
        let newer = held.transactions.filter { transaction in
            guard listed[transaction.transactionID] == nil, let expiry = transaction.expiresDate,
                let receiptLatest = latestExpiry[transaction.originalTransactionID]
            else { return false }
            return expiry > receiptLatest
        }
        let created = created
        let renewals = held.renewals.filter { $0.signedDate > created }
        guard !newer.isEmpty || !renewals.isEmpty || !overrides.isEmpty else { return nil }
        return ReceiptSupplement(
            overrides: overrides,
            newer: newer.sorted {
                ($0.purchaseDate ?? created, $0.transactionID) < ($1.purchaseDate ?? created, $1.transactionID)
            }.map(Self.record),
            renewals: held.renewals.map(Self.record))
    }

    /// A ledger transaction as a `latest_receipt_info` entry.
    static func record(_ transaction: LedgerTransaction) -> LatestReceiptRecord {
        LatestReceiptRecord(
            productID: transaction.productID, transactionID: transaction.transactionID,
            originalTransactionID: transaction.originalTransactionID, purchaseDate: transaction.purchaseDate,
            expiresDate: transaction.expiresDate, cancellationDate: transaction.cancellationDate,
            webOrderLineItemID: transaction.webOrderLineItemID, appAccountToken: transaction.appAccountToken)
    }

    /// A ledger renewal state as a `pending_renewal_info` entry.
    static func record(_ renewal: LedgerRenewal) -> PendingRenewalRecord {
        PendingRenewalRecord(
            originalTransactionID: renewal.originalTransactionID, productID: renewal.productID,
            autoRenewProductID: renewal.autoRenewProductID, autoRenewStatus: renewal.autoRenewStatus,
            isInBillingRetryPeriod: renewal.isInBillingRetryPeriod, expirationIntent: renewal.expirationIntent,
            offerType: renewal.offerType, offerIdentifier: renewal.offerIdentifier,
            gracePeriodExpiresDate: renewal.gracePeriodExpiresDate)
    }
}
