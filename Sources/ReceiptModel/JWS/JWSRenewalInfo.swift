/// A StoreKit 2 signed renewal info's payload (Apple's `JWSRenewalInfoDecodedPayload`), as signed: every member
/// is kept in ``fields``; the accessors read the ones this package acts on. It names no bundle id.
public struct JWSRenewalInfo: Sendable, Hashable {
    /// The payload's members, in order, as signed.
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public var originalTransactionID: String? { fields.text("originalTransactionId") }
    public var productID: String? { fields.text("productId") }
    /// The product the subscription renews into (differs from ``productID`` after a downgrade or crossgrade).
    public var autoRenewProductID: String? { fields.text("autoRenewProductId") }
    /// 1 when the subscription renews automatically, 0 when the customer turned that off.
    public var autoRenewStatus: Int64? { fields.integer("autoRenewStatus") }
    public var isInBillingRetryPeriod: Bool? { fields.boolean("isInBillingRetryPeriod") }
    public var gracePeriodExpiresDate: ReceiptDate? { fields.milliseconds("gracePeriodExpiresDate") }
    public var expirationIntent: Int64? { fields.integer("expirationIntent") }
    public var renewalDate: ReceiptDate? { fields.milliseconds("renewalDate") }
    public var recentSubscriptionStartDate: ReceiptDate? { fields.milliseconds("recentSubscriptionStartDate") }
    public var offerType: Int64? { fields.integer("offerType") }
    public var offerIdentifier: String? { fields.text("offerIdentifier") }
    public var appAccountToken: String? { fields.text("appAccountToken") }
    public var environment: String? { fields.text("environment") }
    public var signedDate: ReceiptDate? { fields.milliseconds("signedDate") }
}
