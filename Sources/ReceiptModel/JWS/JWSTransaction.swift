/// A StoreKit 2 signed transaction's payload (Apple's `JWSTransactionDecodedPayload`), as signed: every member is
/// kept in ``fields``; an accessor reads each member Apple documents as of 2026 (docs/jws.md lists them).
///
/// Identifiers are JSON strings; ``JSONObject/text(_:)`` also takes one written as a number.
public struct JWSTransaction: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = [
        "transactionId", "originalTransactionId", "webOrderLineItemId", "bundleId", "productId",
        "subscriptionGroupIdentifier", "purchaseDate", "originalPurchaseDate", "expiresDate", "quantity", "type",
        "appAccountToken", "inAppOwnershipType", "signedDate", "revocationReason", "revocationDate", "isUpgraded",
        "offerType", "offerIdentifier", "environment", "storefront", "storefrontId", "transactionReason", "price",
        "currency", "offerDiscountType", "appTransactionId", "offerPeriod", "revocationType", "revocationPercentage",
        "previousOriginalTransactionId", "billingPlanType", "commitmentInfo", "advancedCommerceInfo",
    ]

    public var transactionID: String? { fields.text("transactionId") }
    public var originalTransactionID: String? { fields.text("originalTransactionId") }
    public var webOrderLineItemID: String? { fields.text("webOrderLineItemId") }
    public var bundleID: String? { fields.text("bundleId") }
    public var productID: String? { fields.text("productId") }
    public var subscriptionGroupIdentifier: String? { fields.text("subscriptionGroupIdentifier") }
    public var purchaseDate: ReceiptDate? { fields.milliseconds("purchaseDate") }
    public var originalPurchaseDate: ReceiptDate? { fields.milliseconds("originalPurchaseDate") }
    public var expiresDate: ReceiptDate? { fields.milliseconds("expiresDate") }
    public var quantity: Int64? { fields.integer("quantity") }
    public var type: AppleEnumeration<JWSProductType>? { fields.enumeration("type") }
    /// The UUID the app set on the purchase to name its own account, when it set one.
    public var appAccountToken: String? { fields.text("appAccountToken") }
    public var inAppOwnershipType: AppleEnumeration<InAppOwnershipType>? { fields.enumeration("inAppOwnershipType") }
    public var signedDate: ReceiptDate? { fields.milliseconds("signedDate") }
    public var revocationReason: AppleEnumeration<RevocationReason>? { fields.enumeration("revocationReason") }
    /// When the App Store refunded or revoked the transaction.
    public var revocationDate: ReceiptDate? { fields.milliseconds("revocationDate") }
    public var isUpgraded: Bool? { fields.boolean("isUpgraded") }
    public var offerType: AppleEnumeration<OfferType>? { fields.enumeration("offerType") }
    public var offerIdentifier: String? { fields.text("offerIdentifier") }
    public var environment: AppleEnumeration<JWSEnvironment>? { fields.enumeration("environment") }
    /// The storefront's three-letter country or region code.
    public var storefront: String? { fields.text("storefront") }
    public var storefrontID: String? { fields.text("storefrontId") }
    public var transactionReason: AppleEnumeration<TransactionReason>? { fields.enumeration("transactionReason") }
    /// The price in milliunits of ``currency`` (1990 is 1.99).
    public var price: Int64? { fields.integer("price") }
    /// ISO 4217 code of ``price``.
    public var currency: String? { fields.text("currency") }
    public var offerDiscountType: AppleEnumeration<OfferDiscountType>? { fields.enumeration("offerDiscountType") }
    /// The app download's transaction id: one per Apple Account and app, stable across redownloads.
    public var appTransactionID: String? { fields.text("appTransactionId") }
    /// The offer's duration, ISO 8601 (`P1M`).
    public var offerPeriod: String? { fields.text("offerPeriod") }
    public var revocationType: AppleEnumeration<RevocationType>? { fields.enumeration("revocationType") }
    /// The share refunded or revoked, in milliunits of a percent (40% is 40000).
    public var revocationPercentage: Int64? { fields.integer("revocationPercentage") }
    /// The original transaction id before an Advanced Commerce migration.
    public var previousOriginalTransactionID: String? { fields.text("previousOriginalTransactionId") }
    public var billingPlanType: AppleEnumeration<BillingPlanType>? { fields.enumeration("billingPlanType") }
    /// The 12-month commitment of a monthly plan.
    public var commitmentInfo: TransactionCommitmentInfo? {
        fields["commitmentInfo"]?.objectValue.map(TransactionCommitmentInfo.init(fields:))
    }
    /// Advanced Commerce API purchases only.
    public var advancedCommerceInfo: AdvancedCommerceInfo? {
        fields["advancedCommerceInfo"]?.objectValue.map(AdvancedCommerceInfo.init(fields:))
    }
}
