@_spi(Fuzzing) import ReceiptModel

/// The payload of a StoreKit 2 signed transaction (Apple's `JWSTransactionDecodedPayload`), as the forge signs it.
///
/// Property names are Apple's JSON member names, so a description file reads like the payload it mints. Dates are
/// milliseconds since 1970 (integers, as Apple writes them); `nil` leaves a member out rather than writing `null`.
package struct JWSTransactionDescription: Hashable, Sendable, Codable {
    package var transactionId: String?
    package var originalTransactionId: String?
    package var webOrderLineItemId: String?
    package var bundleId: String?
    package var productId: String?
    package var subscriptionGroupIdentifier: String?
    package var purchaseDate: Int64?
    package var originalPurchaseDate: Int64?
    package var expiresDate: Int64?
    package var quantity: Int64?
    /// `Auto-Renewable Subscription`, `Non-Consumable`, `Consumable` or `Non-Renewing Subscription`.
    package var type: String?
    package var appAccountToken: String?
    /// `PURCHASED` or `FAMILY_SHARED`.
    package var inAppOwnershipType: String?
    package var signedDate: Int64?
    package var revocationReason: Int64?
    package var revocationDate: Int64?
    package var isUpgraded: Bool?
    package var offerType: Int64?
    package var offerIdentifier: String?
    /// `Sandbox`, `Production` or `Xcode`.
    package var environment: String?
    package var storefront: String?
    package var storefrontId: String?
    /// `PURCHASE` or `RENEWAL`.
    package var transactionReason: String?
    /// In milliunits of `currency` (1990 is 1.99).
    package var price: Int64?
    package var currency: String?
    package var appTransactionId: String?

    /// A description with every member absent; set the ones the payload carries.
    package init() {}

    /// The payload's JSON text, members in the order of Apple's documentation, absent ones left out.
    package func payloadJSON() -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.field("transactionId", ifPresent: transactionId)
        writer.field("originalTransactionId", ifPresent: originalTransactionId)
        writer.field("webOrderLineItemId", ifPresent: webOrderLineItemId)
        writer.field("bundleId", ifPresent: bundleId)
        writer.field("productId", ifPresent: productId)
        writer.field("subscriptionGroupIdentifier", ifPresent: subscriptionGroupIdentifier)
        writer.field("purchaseDate", ifPresent: purchaseDate)
        writer.field("originalPurchaseDate", ifPresent: originalPurchaseDate)
        writer.field("expiresDate", ifPresent: expiresDate)
        writer.field("quantity", ifPresent: quantity)
        writer.field("type", ifPresent: type)
        writer.field("appAccountToken", ifPresent: appAccountToken)
        writer.field("inAppOwnershipType", ifPresent: inAppOwnershipType)
        writer.field("signedDate", ifPresent: signedDate)
        writer.field("revocationReason", ifPresent: revocationReason)
        writer.field("revocationDate", ifPresent: revocationDate)
        writer.field("isUpgraded", ifPresent: isUpgraded)
        writer.field("offerType", ifPresent: offerType)
        writer.field("offerIdentifier", ifPresent: offerIdentifier)
        writer.field("environment", ifPresent: environment)
        writer.field("storefront", ifPresent: storefront)
        writer.field("storefrontId", ifPresent: storefrontId)
        writer.field("transactionReason", ifPresent: transactionReason)
        writer.field("price", ifPresent: price)
        writer.field("currency", ifPresent: currency)
        writer.field("appTransactionId", ifPresent: appTransactionId)
        writer.endObject()
        return writer.bytes
    }
}
