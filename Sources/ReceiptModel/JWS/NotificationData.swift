/// A V2 notification's `data`: the app, the environment, and the purchase's nested JWS.
public struct NotificationData: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = [
        "appAppleId", "bundleId", "bundleVersion", "environment", "signedTransactionInfo", "signedRenewalInfo",
        "status", "consumptionRequestReason",
    ]

    /// Absent in Sandbox.
    public var appAppleID: Int64? { fields.integer("appAppleId") }
    public var bundleID: String? { fields.text("bundleId") }
    public var bundleVersion: String? { fields.text("bundleVersion") }
    public var environment: AppleEnumeration<JWSEnvironment>? { fields.enumeration("environment") }
    /// A JWS of a ``JWSTransaction``.
    public var signedTransactionInfo: String? { fields["signedTransactionInfo"]?.stringValue }
    /// A JWS of a ``JWSRenewalInfo``.
    public var signedRenewalInfo: String? { fields["signedRenewalInfo"]?.stringValue }
    /// The subscription's status as of the notification's signed date.
    public var status: AppleEnumeration<SubscriptionStatus>? { fields.enumeration("status") }
    public var consumptionRequestReason: AppleEnumeration<ConsumptionRequestReason>? {
        fields.enumeration("consumptionRequestReason")
    }
}
