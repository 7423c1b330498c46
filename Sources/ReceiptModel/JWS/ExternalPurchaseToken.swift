/// A V2 notification's `externalPurchaseToken` (`EXTERNAL_PURCHASE_TOKEN`): a purchase made outside the App Store.
/// It names no environment: an id starting with `SANDBOX` is a Sandbox token.
public struct ExternalPurchaseToken: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = [
        "externalPurchaseId", "tokenCreationDate", "appAppleId", "bundleId", "tokenExpirationDate", "tokenType",
    ]

    public var externalPurchaseID: String? { fields.text("externalPurchaseId") }
    public var tokenCreationDate: ReceiptDate? { fields.milliseconds("tokenCreationDate") }
    public var appAppleID: Int64? { fields.integer("appAppleId") }
    public var bundleID: String? { fields.text("bundleId") }
    /// Custom-link tokens only.
    public var tokenExpirationDate: ReceiptDate? { fields.milliseconds("tokenExpirationDate") }
    /// Custom-link tokens only.
    public var tokenType: AppleEnumeration<ExternalPurchaseTokenType>? { fields.enumeration("tokenType") }
}
