/// An Advanced Commerce API purchase's details (a transaction's or renewal info's `advancedCommerceInfo`): the
/// developer-hosted SKUs, their prices and taxes. Its items are kept as signed objects.
public struct AdvancedCommerceInfo: SignedObject {
    public let fields: JSONObject

    public init(fields: JSONObject) { self.fields = fields }

    public static let documentedMembers = [
        "requestReferenceId", "descriptors", "items", "period", "taxCode", "taxExclusivePrice", "estimatedTax",
        "taxRate", "consistencyToken",
    ]

    public var requestReferenceID: String? { fields.text("requestReferenceId") }
    /// `{"description", "displayName"}`.
    public var descriptors: JSONObject? { fields["descriptors"]?.objectValue }
    /// One object per SKU (`SKU`, `description`, `displayName`, `offer`, `price`, `refunds`, `revocationDate`,
    /// `priceIncreaseInfo`).
    public var items: [JSONObject]? { fields["items"]?.arrayValue?.compactMap(\.objectValue) }
    /// The billing period, ISO 8601 (`P1M`).
    public var period: String? { fields.text("period") }
    public var taxCode: String? { fields.text("taxCode") }
    /// In milliunits.
    public var taxExclusivePrice: Int64? { fields.integer("taxExclusivePrice") }
    /// In milliunits.
    public var estimatedTax: Int64? { fields.integer("estimatedTax") }
    /// A decimal written as a string (`"0.15"`).
    public var taxRate: String? { fields.text("taxRate") }
    /// Renewal info only: the token a change request must carry.
    public var consistencyToken: String? { fields.text("consistencyToken") }
}
