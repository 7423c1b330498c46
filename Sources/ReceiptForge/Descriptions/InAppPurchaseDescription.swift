/// One in-app purchase (a type 17 attribute) as the forge will encode it.
///
/// Field names follow `ReceiptModel.InAppPurchase`; types and encodings follow `docs/receipt-format.md`
/// §3.2. `nil` leaves the attribute out; `cancellationDate: ""` writes the empty string Apple writes
/// for "not cancelled".
public struct InAppPurchaseDescription: Hashable, Sendable, Codable {
    /// Type 1701 (INTEGER).
    public var quantity: Int64?
    /// Type 1702 (UTF8String).
    public var productID: String?
    /// Type 1703 (UTF8String).
    public var transactionID: String?
    /// Type 1704 (IA5String).
    public var purchaseDate: String?
    /// Type 1705 (UTF8String).
    public var originalTransactionID: String?
    /// Type 1706 (IA5String).
    public var originalPurchaseDate: String?
    /// Type 1707: 0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable (INTEGER).
    public var productType: Int64?
    /// Type 1708 (IA5String, may be empty).
    public var expiresDate: String?
    /// Type 1711 (INTEGER, 64 bits).
    public var webOrderLineItemID: Int64?
    /// Type 1712 (IA5String, empty when not cancelled).
    public var cancellationDate: String?
    /// Type 1713, written as INTEGER 0 or 1.
    public var isTrialPeriod: Bool?
    /// Type 1719, written as INTEGER 0 or 1.
    public var isInIntroOfferPeriod: Bool?
    /// Type 1721 (UTF8String).
    public var promotionalOfferID: String?
    /// Further attributes of this purchase written as given.
    public var extraAttributes: [RawAttributeDescription]

    /// A purchase; every field defaults to absent.
    public init(
        quantity: Int64? = nil, productID: String? = nil, transactionID: String? = nil,
        purchaseDate: String? = nil, originalTransactionID: String? = nil, originalPurchaseDate: String? = nil,
        productType: Int64? = nil, expiresDate: String? = nil, webOrderLineItemID: Int64? = nil,
        cancellationDate: String? = nil, isTrialPeriod: Bool? = nil, isInIntroOfferPeriod: Bool? = nil,
        promotionalOfferID: String? = nil, extraAttributes: [RawAttributeDescription] = []
    ) {
        self.quantity = quantity
        self.productID = productID
        self.transactionID = transactionID
        self.purchaseDate = purchaseDate
        self.originalTransactionID = originalTransactionID
        self.originalPurchaseDate = originalPurchaseDate
        self.productType = productType
        self.expiresDate = expiresDate
        self.webOrderLineItemID = webOrderLineItemID
        self.cancellationDate = cancellationDate
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.promotionalOfferID = promotionalOfferID
        self.extraAttributes = extraAttributes
    }

    private enum CodingKeys: String, CodingKey {
        case quantity, productID, transactionID, purchaseDate, originalTransactionID, originalPurchaseDate
        case productType, expiresDate, webOrderLineItemID, cancellationDate, isTrialPeriod, isInIntroOfferPeriod
        case promotionalOfferID, extraAttributes
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            quantity: try c.decodeIfPresent(Int64.self, forKey: .quantity),
            productID: try c.decodeIfPresent(String.self, forKey: .productID),
            transactionID: try c.decodeIfPresent(String.self, forKey: .transactionID),
            purchaseDate: try c.decodeIfPresent(String.self, forKey: .purchaseDate),
            originalTransactionID: try c.decodeIfPresent(String.self, forKey: .originalTransactionID),
            originalPurchaseDate: try c.decodeIfPresent(String.self, forKey: .originalPurchaseDate),
            productType: try c.decodeIfPresent(Int64.self, forKey: .productType),
            expiresDate: try c.decodeIfPresent(String.self, forKey: .expiresDate),
            webOrderLineItemID: try c.decodeIfPresent(Int64.self, forKey: .webOrderLineItemID),
            cancellationDate: try c.decodeIfPresent(String.self, forKey: .cancellationDate),
            isTrialPeriod: try c.decodeIfPresent(Bool.self, forKey: .isTrialPeriod),
            isInIntroOfferPeriod: try c.decodeIfPresent(Bool.self, forKey: .isInIntroOfferPeriod),
            promotionalOfferID: try c.decodeIfPresent(String.self, forKey: .promotionalOfferID),
            extraAttributes: try c.decodeIfPresent([RawAttributeDescription].self, forKey: .extraAttributes) ?? []
        )
    }

    /// Writes absent fields and empty lists not at all, so committed JSON stays short.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(quantity, forKey: .quantity)
        try c.encodeIfPresent(productID, forKey: .productID)
        try c.encodeIfPresent(transactionID, forKey: .transactionID)
        try c.encodeIfPresent(purchaseDate, forKey: .purchaseDate)
        try c.encodeIfPresent(originalTransactionID, forKey: .originalTransactionID)
        try c.encodeIfPresent(originalPurchaseDate, forKey: .originalPurchaseDate)
        try c.encodeIfPresent(productType, forKey: .productType)
        try c.encodeIfPresent(expiresDate, forKey: .expiresDate)
        try c.encodeIfPresent(webOrderLineItemID, forKey: .webOrderLineItemID)
        try c.encodeIfPresent(cancellationDate, forKey: .cancellationDate)
        try c.encodeIfPresent(isTrialPeriod, forKey: .isTrialPeriod)
        try c.encodeIfPresent(isInIntroOfferPeriod, forKey: .isInIntroOfferPeriod)
        try c.encodeIfPresent(promotionalOfferID, forKey: .promotionalOfferID)
        if !extraAttributes.isEmpty { try c.encode(extraAttributes, forKey: .extraAttributes) }
    }
}
