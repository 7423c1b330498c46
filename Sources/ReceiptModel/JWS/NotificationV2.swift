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

    /// The bundle id of the app it is about, from whichever of the four objects it carries (in Apple's order:
    /// `data`, `summary`, `externalPurchaseToken`, `appData`).
    public var bundleID: String? {
        data?.bundleID ?? summary?.bundleID ?? externalPurchaseToken?.bundleID ?? appData?.bundleID
    }

    /// The app's Apple id, where the payload names one (Apple leaves it out in Sandbox).
    public var appAppleID: Int64? {
        data?.appAppleID ?? summary?.appAppleID ?? externalPurchaseToken?.appAppleID ?? appData?.appAppleID
    }

    /// The environment: `data`'s, `summary`'s or `appData`'s `environment`; an external purchase token names none,
    /// so, as Apple's libraries do, a token whose id starts with `SANDBOX` is Sandbox and any other Production.
    public var environment: AppleEnumeration<JWSEnvironment>? {
        if let data { return data.environment }
        if let summary { return summary.environment }
        if let token = externalPurchaseToken {
            return .known((token.externalPurchaseID ?? "").hasPrefix("SANDBOX") ? .sandbox : .production)
        }
        return appData?.environment
    }

    /// The nested JWS, each with the member that holds it and so the kind it is: `data.signedTransactionInfo`,
    /// `data.signedRenewalInfo`, `appData.signedAppTransactionInfo`. A member that is not a string is left out.
    public var nestedJWS: [(member: String, kind: JWSPayload.Kind, text: String)] {
        var nested: [(member: String, kind: JWSPayload.Kind, text: String)] = []
        for (object, member) in [
            (data?.fields, "signedTransactionInfo"), (data?.fields, "signedRenewalInfo"),
            (appData?.fields, "signedAppTransactionInfo"),
        ] {
            guard let text = object?[member]?.stringValue, let kind = JWSPayload.Kind(member: member) else { continue }
            nested.append((member, kind, text))
        }
        return nested
    }

    /// The nested JWS of the transaction, when the notification carries one.
    public var signedTransactionInfo: String? { data?.signedTransactionInfo }
    /// The nested JWS of the renewal info, when the notification carries one.
    public var signedRenewalInfo: String? { data?.signedRenewalInfo }
}
