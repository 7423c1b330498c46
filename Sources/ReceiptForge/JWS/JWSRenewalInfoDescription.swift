import ReceiptModel

/// The payload of a StoreKit 2 signed renewal info (Apple's `JWSRenewalInfoDecodedPayload`), as the forge signs it.
///
/// Property names are Apple's JSON member names; dates are milliseconds since 1970; `nil` leaves a member out.
public struct JWSRenewalInfoDescription: Hashable, Sendable, Codable {
    public var originalTransactionId: String?
    public var autoRenewProductId: String?
    public var productId: String?
    /// 1: renews automatically; 0: the customer turned renewal off.
    public var autoRenewStatus: Int64?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Int64?
    /// 1 cancelled, 2 billing error, 3 price increase not consented, 4 product unavailable, 5 other.
    public var expirationIntent: Int64?
    public var priceIncreaseStatus: Int64?
    public var signedDate: Int64?
    /// `Sandbox`, `Production` or `Xcode`.
    public var environment: String?
    public var recentSubscriptionStartDate: Int64?
    public var renewalDate: Int64?
    public var offerType: Int64?
    public var offerIdentifier: String?
    public var appAccountToken: String?

    /// A description with every member absent; set the ones the payload carries.
    public init() {}

    /// The payload's JSON text, members in the order of Apple's documentation, absent ones left out.
    public func payloadJSON() -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.field("originalTransactionId", ifPresent: originalTransactionId)
        writer.field("autoRenewProductId", ifPresent: autoRenewProductId)
        writer.field("productId", ifPresent: productId)
        writer.field("autoRenewStatus", ifPresent: autoRenewStatus)
        writer.field("isInBillingRetryPeriod", ifPresent: isInBillingRetryPeriod)
        writer.field("gracePeriodExpiresDate", ifPresent: gracePeriodExpiresDate)
        writer.field("expirationIntent", ifPresent: expirationIntent)
        writer.field("priceIncreaseStatus", ifPresent: priceIncreaseStatus)
        writer.field("signedDate", ifPresent: signedDate)
        writer.field("environment", ifPresent: environment)
        writer.field("recentSubscriptionStartDate", ifPresent: recentSubscriptionStartDate)
        writer.field("renewalDate", ifPresent: renewalDate)
        writer.field("offerType", ifPresent: offerType)
        writer.field("offerIdentifier", ifPresent: offerIdentifier)
        writer.field("appAccountToken", ifPresent: appAccountToken)
        writer.endObject()
        return writer.bytes
    }
}
