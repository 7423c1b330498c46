@_spi(Fuzzing) import ReceiptModel

/// The payload of a StoreKit 2 signed renewal info (Apple's `JWSRenewalInfoDecodedPayload`), as the forge signs it.
///
/// Property names are Apple's JSON member names; dates are milliseconds since 1970; `nil` leaves a member out.
package struct JWSRenewalInfoDescription: Hashable, Sendable, Codable {
    package var originalTransactionId: String?
    package var autoRenewProductId: String?
    package var productId: String?
    /// 1: renews automatically; 0: the customer turned renewal off.
    package var autoRenewStatus: Int64?
    package var isInBillingRetryPeriod: Bool?
    package var gracePeriodExpiresDate: Int64?
    /// 1 cancelled, 2 billing error, 3 price increase not consented, 4 product unavailable, 5 other.
    package var expirationIntent: Int64?
    package var priceIncreaseStatus: Int64?
    package var signedDate: Int64?
    /// `Sandbox`, `Production` or `Xcode`.
    package var environment: String?
    package var recentSubscriptionStartDate: Int64?
    package var renewalDate: Int64?
    package var offerType: Int64?
    package var offerIdentifier: String?
    package var appAccountToken: String?

    /// A description with every member absent; set the ones the payload carries.
    package init() {}

    /// The payload's JSON text, members in the order of Apple's documentation, absent ones left out.
    package func payloadJSON() -> [UInt8] {
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
