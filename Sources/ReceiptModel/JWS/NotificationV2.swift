/// An App Store Server Notification V2's payload (Apple's `ResponseBodyV2DecodedPayload`), as signed: every
/// member is kept in ``fields``; the accessors read the ones this package acts on. Its `data` carries the
/// subscription's signed transaction and renewal info as JWS of their own, verified separately.
public struct NotificationV2: Sendable, Hashable {
    /// The payload's members, in order, as signed.
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    /// `SUBSCRIBED`, `DID_RENEW`, `EXPIRED`, `DID_FAIL_TO_RENEW`, `GRACE_PERIOD_EXPIRED`, `REFUND`, `REVOKE`, ….
    public var notificationType: String? { fields.text("notificationType") }
    public var subtype: String? { fields.text("subtype") }
    /// Apple's id of this notification; a retry carries the same one.
    public var notificationUUID: String? { fields.text("notificationUUID") }
    public var version: String? { fields.text("version") }
    public var signedDate: ReceiptDate? { fields.milliseconds("signedDate") }
    /// The app and subscription the notification is about.
    public var data: JSONObject? { fields["data"]?.objectValue }
    public var bundleID: String? { data?.text("bundleId") }
    public var appAppleID: Int64? { data?.integer("appAppleId") }
    public var environment: String? { data?.text("environment") }
    /// The nested JWS of the transaction, when the notification carries one.
    public var signedTransactionInfo: String? { data?.text("signedTransactionInfo") }
    /// The nested JWS of the renewal info, when the notification carries one.
    public var signedRenewalInfo: String? { data?.text("signedRenewalInfo") }
}
