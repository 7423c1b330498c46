/// A V2 notification's `appData` (`RESCIND_CONSENT`): the app and, as a nested JWS, its app transaction.
public struct NotificationAppData: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = ["appAppleId", "bundleId", "environment", "signedAppTransactionInfo"]

    /// Absent in Sandbox.
    public var appAppleID: Int64? { fields.integer("appAppleId") }
    public var bundleID: String? { fields.text("bundleId") }
    public var environment: AppleEnumeration<JWSEnvironment>? { fields.enumeration("environment") }
    /// A JWS of a ``JWSAppTransaction``.
    public var signedAppTransactionInfo: String? { fields["signedAppTransactionInfo"]?.stringValue }
}
