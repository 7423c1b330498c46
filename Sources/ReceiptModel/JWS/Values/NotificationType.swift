/// An App Store Server Notification V2's `notificationType`, as Apple documents it in 2026 (read through
/// ``AppleEnumeration``, so a type Apple adds later is kept as signed). docs/jws.md says what the ledger does with
/// each.
public enum NotificationType: String, Sendable, Hashable, CaseIterable {
    case subscribed = "SUBSCRIBED"
    case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
    case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
    case offerRedeemed = "OFFER_REDEEMED"
    case didRenew = "DID_RENEW"
    case expired = "EXPIRED"
    case didFailToRenew = "DID_FAIL_TO_RENEW"
    case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
    case priceIncrease = "PRICE_INCREASE"
    case refund = "REFUND"
    case refundDeclined = "REFUND_DECLINED"
    case refundReversed = "REFUND_REVERSED"
    case consumptionRequest = "CONSUMPTION_REQUEST"
    case renewalExtended = "RENEWAL_EXTENDED"
    case renewalExtension = "RENEWAL_EXTENSION"
    case revoke = "REVOKE"
    case test = "TEST"
    case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
    case oneTimeCharge = "ONE_TIME_CHARGE"
    case rescindConsent = "RESCIND_CONSENT"
    /// Advanced Commerce API: the subscription's metadata changed.
    case metadataUpdate = "METADATA_UPDATE"
    /// Advanced Commerce API: a subscription was migrated.
    case migration = "MIGRATION"
    /// Advanced Commerce API: a subscription's price changed.
    case priceChange = "PRICE_CHANGE"
}
