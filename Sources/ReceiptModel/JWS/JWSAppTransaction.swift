/// A StoreKit 2 app transaction's payload (Apple's `AppTransaction`), as signed: every member is kept in
/// ``fields``; the accessors read the ones this package acts on.
public struct JWSAppTransaction: Sendable, Hashable {
    /// The payload's members, in order, as signed.
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public var bundleID: String? { fields.text("bundleId") }
    public var appAppleID: Int64? { fields.integer("appAppleId") }
    /// `Production`, `Sandbox` or `Xcode`: the app transaction's environment.
    public var receiptType: String? { fields.text("receiptType") }
    public var applicationVersion: String? { fields.text("applicationVersion") }
    public var originalApplicationVersion: String? { fields.text("originalApplicationVersion") }
    public var originalPurchaseDate: ReceiptDate? { fields.milliseconds("originalPurchaseDate") }
    public var receiptCreationDate: ReceiptDate? { fields.milliseconds("receiptCreationDate") }
    public var appTransactionID: String? { fields.text("appTransactionId") }
    public var signedDate: ReceiptDate? { fields.milliseconds("signedDate") }
}
