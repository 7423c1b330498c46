import ReceiptForge

extension JWSTransactionDescription {
    /// A renewal info saying this subscription renews into the same product, signed when the transaction was.
    func renewing() -> JWSRenewalInfoDescription {
        var renewal = JWSRenewalInfoDescription()
        renewal.originalTransactionId = originalTransactionId ?? transactionId
        renewal.autoRenewProductId = productId
        renewal.productId = productId
        renewal.autoRenewStatus = 1
        renewal.signedDate = signedDate
        renewal.environment = environment
        renewal.recentSubscriptionStartDate = originalPurchaseDate
        renewal.renewalDate = expiresDate
        return renewal
    }
}
