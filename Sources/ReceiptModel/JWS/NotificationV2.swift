/// An App Store Server Notification V2's payload (Apple's `ResponseBodyV2DecodedPayload`), as signed: every member
/// is kept in ``fields``; an accessor reads each member Apple documents as of 2026.
///
/// Exactly one of ``data``, ``summary``, ``externalPurchaseToken`` and ``appData`` says which app the notification
/// is about. Its nested JWS (``nestedJWS``) are verified separately, each typed by the member that holds it.
public struct NotificationV2: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = [
        "notificationType", "subtype", "notificationUUID", "version", "signedDate", "data", "summary",
        "externalPurchaseToken", "appData",
    ]

    public var notificationType: AppleEnumeration<NotificationType>? { fields.enumeration("notificationType") }
    public var subtype: AppleEnumeration<NotificationSubtype>? { fields.enumeration("subtype") }
    /// Apple's id of this notification; a retry carries the same one.
    public var notificationUUID: String? { fields.text("notificationUUID") }
    /// `2.0`.
    public var version: String? { fields.text("version") }
    public var signedDate: ReceiptDate? { fields.milliseconds("signedDate") }
    /// The app, environment and purchase most notification types are about.
    public var data: NotificationData? { fields["data"]?.objectValue.map(NotificationData.init(fields:)) }
    /// `RENEWAL_EXTENSION`/`SUMMARY`: the outcome of a mass renewal-date extension.
    public var summary: NotificationSummary? {
        fields["summary"]?.objectValue.map(NotificationSummary.init(fields:))
    }
    /// `EXTERNAL_PURCHASE_TOKEN`: a token of a purchase made outside the App Store.
    public var externalPurchaseToken: ExternalPurchaseToken? {
        fields["externalPurchaseToken"]?.objectValue.map(ExternalPurchaseToken.init(fields:))
    }
    /// `RESCIND_CONSENT`: the app and its app transaction.
    public var appData: NotificationAppData? { fields["appData"]?.objectValue.map(NotificationAppData.init(fields:)) }

    /// The members that say which app a notification is about; Apple sends exactly one of them.
    package static let appObjectMembers = ["data", "summary", "externalPurchaseToken", "appData"]

    /// The names of the ``appObjectMembers`` the payload carries (whatever their JSON type); a notification
    /// carrying more than one is refused, as it could name one app in one and another in the other.
    package var appObjects: [String] { Self.appObjectMembers.filter { fields[$0] != nil } }

    /// The bundle id of the app it is about, from the first of the four objects it carries (in Apple's order:
    /// `data`, `summary`, `externalPurchaseToken`, `appData`), never from two.
    public var bundleID: String? {
        if let data { return data.bundleID }
        if let summary { return summary.bundleID }
        if let externalPurchaseToken { return externalPurchaseToken.bundleID }
        return appData?.bundleID
    }

    /// The app's Apple id, where the same object names one (Apple leaves it out in Sandbox).
    public var appAppleID: Int64? {
        if let data { return data.appAppleID }
        if let summary { return summary.appAppleID }
        if let externalPurchaseToken { return externalPurchaseToken.appAppleID }
        return appData?.appAppleID
    }

    /// The environment, from the same object: `data`'s, `summary`'s or `appData`'s `environment`; an external
    /// purchase token names none, so, as Apple's libraries do, a token whose id starts with `SANDBOX` is Sandbox and
    /// any other Production.
    public var environment: AppleEnumeration<JWSEnvironment>? {
        if let data { return data.environment }
        if let summary { return summary.environment }
        if let token = externalPurchaseToken {
            return .known((token.externalPurchaseID ?? "").hasPrefix("SANDBOX") ? .sandbox : .production)
        }
        return appData?.environment
    }

    /// Where a notification holds nested JWS: `data.signedTransactionInfo`, `data.signedRenewalInfo`,
    /// `appData.signedAppTransactionInfo`, each with what it holds there (absent: `nil`).
    private var nestedPlaces: [(member: String, value: JSONValue?)] {
        [
            ("signedTransactionInfo", data?.fields["signedTransactionInfo"]),
            ("signedRenewalInfo", data?.fields["signedRenewalInfo"]),
            ("signedAppTransactionInfo", appData?.fields["signedAppTransactionInfo"]),
        ]
    }

    /// The nested-JWS members that are present but not strings: malformed, never skipped.
    package var malformedNestedMembers: [String] {
        nestedPlaces.compactMap { place in
            guard let value = place.value, value.stringValue == nil else { return nil }
            return place.member
        }
    }

    /// The nested JWS, each with the member that holds it and so the kind it is: `data.signedTransactionInfo`,
    /// `data.signedRenewalInfo`, `appData.signedAppTransactionInfo`. A member that is not a string is left out.
    public var nestedJWS: [(member: String, kind: JWSPayload.Kind, text: String)] {
        nestedPlaces.compactMap { place in
            guard let text = place.value?.stringValue, let kind = JWSPayload.Kind(member: place.member) else {
                return nil
            }
            return (place.member, kind, text)
        }
    }

    /// The nested JWS of the transaction, when the notification carries one.
    public var signedTransactionInfo: String? { data?.signedTransactionInfo }
    /// The nested JWS of the renewal info, when the notification carries one.
    public var signedRenewalInfo: String? { data?.signedRenewalInfo }
}
