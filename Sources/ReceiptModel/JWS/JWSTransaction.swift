/// A StoreKit 2 signed transaction's payload (Apple's `JWSTransactionDecodedPayload`), as signed: every member
/// is kept in ``fields``; the accessors read the ones this package acts on.
public struct JWSTransaction: Sendable, Hashable {
    /// The payload's members, in order, as signed.
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public var transactionID: String? { fields.text("transactionId") }
    public var originalTransactionID: String? { fields.text("originalTransactionId") }
    public var webOrderLineItemID: String? { fields.text("webOrderLineItemId") }
    public var bundleID: String? { fields.text("bundleId") }
    public var productID: String? { fields.text("productId") }
    /// `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable` or `Non-Renewing Subscription`.
    public var type: String? { fields.text("type") }
    public var subscriptionGroupIdentifier: String? { fields.text("subscriptionGroupIdentifier") }
    public var purchaseDate: ReceiptDate? { fields.milliseconds("purchaseDate") }
    public var originalPurchaseDate: ReceiptDate? { fields.milliseconds("originalPurchaseDate") }
    public var expiresDate: ReceiptDate? { fields.milliseconds("expiresDate") }
    /// When the App Store refunded or revoked the transaction.
    public var revocationDate: ReceiptDate? { fields.milliseconds("revocationDate") }
    public var revocationReason: Int64? { fields.integer("revocationReason") }
    /// The UUID the app set on the purchase to name its own account, when it set one.
    public var appAccountToken: String? { fields.text("appAccountToken") }
    /// `Production`, `Sandbox` or `Xcode`.
    public var environment: String? { fields.text("environment") }
    public var signedDate: ReceiptDate? { fields.milliseconds("signedDate") }
    public var quantity: Int64? { fields.integer("quantity") }
    public var isUpgraded: Bool? { fields.boolean("isUpgraded") }
    public var offerType: Int64? { fields.integer("offerType") }
    public var offerIdentifier: String? { fields.text("offerIdentifier") }
    public var inAppOwnershipType: String? { fields.text("inAppOwnershipType") }
    public var transactionReason: String? { fields.text("transactionReason") }
    public var appTransactionID: String? { fields.text("appTransactionId") }
}
