@_spi(Fuzzing) public import ReceiptModel

/// What a store of verified facts (the ledger) knows about a valid receipt's subscriptions beyond the receipt, in
/// the terms of Apple's verifyReceipt body: the one renderer (`VerifyReceiptBody.answer(_:status:requestDate:excludeOldTransactions:receiptData:supplement:)`)
/// writes it into `latest_receipt_info` and `pending_renewal_info`.
///
/// Only verified facts may be put here: the receipt's own signed entries, verified StoreKit 2 JWS and verified
/// notifications.
public struct ReceiptSupplement: Sendable {
    /// The receipt's own transactions known better (a refund the receipt does not show), by transaction id:
    /// written in place of the receipt's entry.
    public var overrides: [String: LatestReceiptRecord]
    /// Transactions the receipt does not list that expire after its latest, oldest first: written after the
    /// receipt's own entries.
    public var newer: [LatestReceiptRecord]
    /// Renewal states, as `pending_renewal_info`.
    public var renewals: [PendingRenewalRecord]

    public init(
        overrides: [String: LatestReceiptRecord] = [:], newer: [LatestReceiptRecord] = [],
        renewals: [PendingRenewalRecord] = []
    ) {
        self.overrides = overrides
        self.newer = newer
        self.renewals = renewals
    }
}

/// One `latest_receipt_info` entry known from a verified source other than the receipt.
public struct LatestReceiptRecord: Sendable, Hashable {
    public var productID: String
    public var transactionID: String
    public var originalTransactionID: String
    public var purchaseDate: ReceiptDate?
    public var expiresDate: ReceiptDate?
    public var cancellationDate: ReceiptDate?
    public var webOrderLineItemID: String?
    public var appAccountToken: String?

    public init(
        productID: String, transactionID: String, originalTransactionID: String, purchaseDate: ReceiptDate?,
        expiresDate: ReceiptDate?, cancellationDate: ReceiptDate?, webOrderLineItemID: String?,
        appAccountToken: String?
    ) {
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.webOrderLineItemID = webOrderLineItemID
        self.appAccountToken = appAccountToken
    }

    /// The entry in Apple's shape (Apple writes every value as a string).
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("quantity", "1")
        writer.field("product_id", productID)
        writer.field("transaction_id", transactionID)
        writer.field("original_transaction_id", originalTransactionID)
        AppleReceiptJSON.writeDate(purchaseDate, "purchase_date", "purchase_date_ms", "purchase_date_pst", to: &writer)
        AppleReceiptJSON.writeDate(expiresDate, "expires_date", "expires_date_ms", "expires_date_pst", to: &writer)
        AppleReceiptJSON.writeDate(
            cancellationDate, "cancellation_date", "cancellation_date_ms", "cancellation_date_pst", to: &writer)
        if let webOrderLineItemID { writer.field("web_order_line_item_id", webOrderLineItemID) }
        if let appAccountToken { writer.field("app_account_token", appAccountToken) }
        writer.field("in_app_ownership_type", "PURCHASED")
        writer.endObject()
    }
}

/// One `pending_renewal_info` entry, from a verified renewal info.
public struct PendingRenewalRecord: Sendable, Hashable {
    public var originalTransactionID: String
    public var productID: String?
    public var autoRenewProductID: String?
    public var autoRenewStatus: Int64?
    public var isInBillingRetryPeriod: Bool?
    public var expirationIntent: Int64?
    /// StoreKit's offer type (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: Int64?
    public var offerIdentifier: String?
    public var gracePeriodExpiresDate: ReceiptDate?

    public init(
        originalTransactionID: String, productID: String?, autoRenewProductID: String?, autoRenewStatus: Int64?,
        isInBillingRetryPeriod: Bool?, expirationIntent: Int64?, offerType: Int64?, offerIdentifier: String?,
        gracePeriodExpiresDate: ReceiptDate?
    ) {
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.expirationIntent = expirationIntent
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
    }

    /// The entry in Apple's shape.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let autoRenewProductID { writer.field("auto_renew_product_id", autoRenewProductID) }
        writer.field("original_transaction_id", originalTransactionID)
        if let productID { writer.field("product_id", productID) }
        if let autoRenewStatus { writer.field("auto_renew_status", String(autoRenewStatus)) }
        if let isInBillingRetryPeriod { writer.field("is_in_billing_retry_period", isInBillingRetryPeriod ? "1" : "0") }
        if let expirationIntent { writer.field("expiration_intent", String(expirationIntent)) }
        // Apple's names for a pending offer: a promotional offer's id, an offer code's reference name.
        if let offerIdentifier {
            switch offerType.flatMap(OfferType.init(rawValue:)) {
            case .promotional?: writer.field("promotional_offer_id", offerIdentifier)
            case .offerCode?: writer.field("offer_code_ref_name", offerIdentifier)
            default: break
            }
        }
        AppleReceiptJSON.writeDate(
            gracePeriodExpiresDate, "grace_period_expires_date", "grace_period_expires_date_ms",
            "grace_period_expires_date_pst", to: &writer)
        writer.endObject()
    }
}
