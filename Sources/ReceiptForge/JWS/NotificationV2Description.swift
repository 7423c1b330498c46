@_spi(Fuzzing) import ReceiptModel

/// The payload of an App Store Server Notification V2 (Apple's `ResponseBodyV2DecodedPayload`), as the forge
/// signs it; Apple POSTs it as `{"signedPayload": "<JWS>"}`.
///
/// Property names are Apple's JSON member names; `nil` leaves a member out.
package struct NotificationV2Description: Hashable, Sendable, Codable {
    /// `SUBSCRIBED`, `DID_RENEW`, `EXPIRED`, `DID_FAIL_TO_RENEW`, `GRACE_PERIOD_EXPIRED`, `REFUND`, `REVOKE`,
    /// `DID_CHANGE_RENEWAL_STATUS`, `DID_CHANGE_RENEWAL_PREF`, ….
    package var notificationType: String?
    package var subtype: String?
    package var notificationUUID: String?
    /// `2.0`.
    package var version: String?
    package var signedDate: Int64?
    package var data: NotificationDataDescription?

    /// A description with every member absent; set the ones the notification carries.
    package init() {}

    /// The payload's JSON text, with `signedTransactionInfo` and `signedRenewalInfo` given as already minted JWS
    /// (`nil` leaves them out).
    package func payloadJSON(signedTransactionInfo: String?, signedRenewalInfo: String?) -> [UInt8] {
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        writer.field("notificationType", ifPresent: notificationType)
        writer.field("subtype", ifPresent: subtype)
        writer.field("notificationUUID", ifPresent: notificationUUID)
        if let data {
            writer.key("data")
            writer.beginObject()
            writer.field("appAppleId", ifPresent: data.appAppleId)
            writer.field("bundleId", ifPresent: data.bundleId)
            writer.field("bundleVersion", ifPresent: data.bundleVersion)
            writer.field("environment", ifPresent: data.environment)
            writer.field("signedTransactionInfo", ifPresent: signedTransactionInfo)
            writer.field("signedRenewalInfo", ifPresent: signedRenewalInfo)
            writer.field("status", ifPresent: data.status)
            writer.endObject()
        }
        writer.field("version", ifPresent: version)
        writer.field("signedDate", ifPresent: signedDate)
        writer.endObject()
        return writer.bytes
    }
}
