/// A StoreKit 2 app transaction's payload (Apple's `AppTransaction` / `JWSAppTransactionDecodedPayload`), as
/// signed: every member is kept in ``fields``; an accessor reads each member Apple documents as of 2026.
///
/// It has no `signedDate`: Apple signs it at ``receiptCreationDate``.
public struct JWSAppTransaction: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = [
        "receiptType", "appAppleId", "bundleId", "applicationVersion", "versionExternalIdentifier",
        "receiptCreationDate", "originalPurchaseDate", "originalApplicationVersion", "deviceVerification",
        "deviceVerificationNonce", "preorderDate", "appTransactionId", "originalPlatform", "signedDate",
    ]

    /// The environment that signed it: `Production`, `Sandbox` or `Xcode`.
    public var receiptType: AppleEnumeration<JWSEnvironment>? { fields.enumeration("receiptType") }
    public var appAppleID: Int64? { fields.integer("appAppleId") }
    public var bundleID: String? { fields.text("bundleId") }
    public var applicationVersion: String? { fields.text("applicationVersion") }
    public var versionExternalIdentifier: Int64? { fields.integer("versionExternalIdentifier") }
    public var receiptCreationDate: ReceiptDate? { fields.milliseconds("receiptCreationDate") }
    public var originalPurchaseDate: ReceiptDate? { fields.milliseconds("originalPurchaseDate") }
    public var originalApplicationVersion: String? { fields.text("originalApplicationVersion") }
    /// Base64 of SHA-384(nonce ‖ device id), for the device check.
    public var deviceVerification: String? { fields.text("deviceVerification") }
    public var deviceVerificationNonce: String? { fields.text("deviceVerificationNonce") }
    public var preorderDate: ReceiptDate? { fields.milliseconds("preorderDate") }
    public var appTransactionID: String? { fields.text("appTransactionId") }
    public var originalPlatform: AppleEnumeration<PurchasePlatform>? { fields.enumeration("originalPlatform") }
    /// Apple's libraries' name for ``receiptCreationDate``; read when a payload carries it.
    public var signedDate: ReceiptDate? { fields.milliseconds("signedDate") }
}
