/// A StoreKit 2 signed renewal info's payload (Apple's `JWSRenewalInfoDecodedPayload`), as signed: every member is
/// kept in ``fields``; an accessor reads each member Apple documents as of 2026. It names no bundle id.
public struct JWSRenewalInfo: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = [
        "originalTransactionId", "autoRenewProductId", "productId", "autoRenewStatus", "isInBillingRetryPeriod",
        "gracePeriodExpiresDate", "expirationIntent", "priceIncreaseStatus", "signedDate", "environment",
        "recentSubscriptionStartDate", "renewalDate", "offerType", "offerIdentifier", "offerDiscountType",
        "offerPeriod", "renewalPrice", "currency", "eligibleWinBackOfferIds", "appAccountToken", "appTransactionId",
        "renewalBillingPlanType", "commitmentInfo", "advancedCommerceInfo",
    ]

    public var originalTransactionID: String? { fields.text("originalTransactionId") }
    public var productID: String? { fields.text("productId") }
    /// The product the subscription renews into (differs from ``productID`` after a downgrade or crossgrade).
    public var autoRenewProductID: String? { fields.text("autoRenewProductId") }
    public var autoRenewStatus: AppleEnumeration<AutoRenewStatus>? { fields.enumeration("autoRenewStatus") }
    public var isInBillingRetryPeriod: Bool? { fields.boolean("isInBillingRetryPeriod") }
    public var gracePeriodExpiresDate: ReceiptDate? { fields.milliseconds("gracePeriodExpiresDate") }
    public var expirationIntent: AppleEnumeration<ExpirationIntent>? { fields.enumeration("expirationIntent") }
    public var priceIncreaseStatus: AppleEnumeration<PriceIncreaseStatus>? {
        fields.enumeration("priceIncreaseStatus")
    }
    public var renewalDate: ReceiptDate? { fields.milliseconds("renewalDate") }
    public var recentSubscriptionStartDate: ReceiptDate? { fields.milliseconds("recentSubscriptionStartDate") }
    public var offerType: AppleEnumeration<OfferType>? { fields.enumeration("offerType") }
    public var offerIdentifier: String? { fields.text("offerIdentifier") }
    public var offerDiscountType: AppleEnumeration<OfferDiscountType>? { fields.enumeration("offerDiscountType") }
    /// The offer's duration, ISO 8601.
    public var offerPeriod: String? { fields.text("offerPeriod") }
    /// The next renewal's price, in milliunits of ``currency``.
    public var renewalPrice: Int64? { fields.integer("renewalPrice") }
    public var currency: String? { fields.text("currency") }
    /// The win-back offers the customer may redeem, best first.
    public var eligibleWinBackOfferIDs: [String]? {
        fields["eligibleWinBackOfferIds"]?.arrayValue?.compactMap(\.stringValue)
    }
    /// The account token that applies to the upcoming renewal.
    public var appAccountToken: String? { fields.text("appAccountToken") }
    public var appTransactionID: String? { fields.text("appTransactionId") }
    public var renewalBillingPlanType: AppleEnumeration<BillingPlanType>? {
        fields.enumeration("renewalBillingPlanType")
    }
    public var commitmentInfo: RenewalCommitmentInfo? {
        fields["commitmentInfo"]?.objectValue.map(RenewalCommitmentInfo.init(fields:))
    }
    public var advancedCommerceInfo: AdvancedCommerceInfo? {
        fields["advancedCommerceInfo"]?.objectValue.map(AdvancedCommerceInfo.init(fields:))
    }
    public var environment: AppleEnumeration<JWSEnvironment>? { fields.enumeration("environment") }
    public var signedDate: ReceiptDate? { fields.milliseconds("signedDate") }
}
