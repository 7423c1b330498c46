package import ReceiptForge

/// One purchase the stand-in's App Store Server API knows: the signed transaction's payload, the renewal info of
/// an auto-renewable subscription, and the order id a customer's e-mail receipt shows.
package struct ServerAPITransaction: Sendable, Hashable {
    /// Minted as `signedTransactionInfo` / an element of `signedTransactions`.
    package var transaction: JWSTransactionDescription
    /// Minted as `signedRenewalInfo`; when `nil` for an auto-renewable subscription, the stand-in makes one that
    /// renews the same product.
    package var renewalInfo: JWSRenewalInfoDescription?
    /// What Look Up Order ID (`GET /inApps/v1/lookup/{orderId}`) finds it by.
    package var orderID: String?

    package init(
        transaction: JWSTransactionDescription, renewalInfo: JWSRenewalInfoDescription? = nil, orderID: String? = nil
    ) {
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.orderID = orderID
    }

    /// The customer it belongs to: its original transaction id (its own id when it has none).
    var customerKey: String { transaction.originalTransactionId ?? transaction.transactionId ?? "" }
}
