/// A V2 notification's `summary` (`RENEWAL_EXTENSION`/`SUMMARY`): how a mass renewal-date extension went.
public struct NotificationSummary: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = [
        "requestIdentifier", "environment", "appAppleId", "bundleId", "productId", "storefrontCountryCodes",
        "failedCount", "succeededCount",
    ]

    /// The id the developer gave the extension request.
    public var requestIdentifier: String? { fields.text("requestIdentifier") }
    public var environment: AppleEnumeration<JWSEnvironment>? { fields.enumeration("environment") }
    public var appAppleID: Int64? { fields.integer("appAppleId") }
    public var bundleID: String? { fields.text("bundleId") }
    public var productID: String? { fields.text("productId") }
    /// Absent when the extension applied to every storefront.
    public var storefrontCountryCodes: [String]? {
        fields["storefrontCountryCodes"]?.arrayValue?.compactMap(\.stringValue)
    }
    public var failedCount: Int64? { fields.integer("failedCount") }
    public var succeededCount: Int64? { fields.integer("succeededCount") }
}
