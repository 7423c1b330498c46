@_spi(Fuzzing) import BER

/// One in-app purchase record: the `SET OF ReceiptAttribute` inside a type 17 attribute.
///
/// Documented fields are decoded once into compact storage (integers, dates as milliseconds,
/// strings as slices of the receipt bytes); `String`s are made only when asked for, because
/// creating them costs more than walking the bytes. Every attribute, known or not, stays
/// available through ``attributes``.
public struct InAppPurchase: Sendable {
    /// The content of the purchase's SET OF ReceiptAttribute, as received.
    public let encoded: ArraySlice<UInt8>

    public private(set) var quantity: Int64?
    public private(set) var productIDBytes: ArraySlice<UInt8>?
    public private(set) var transactionIDBytes: ArraySlice<UInt8>?
    public private(set) var purchaseDate: ReceiptDate?
    public private(set) var originalTransactionIDBytes: ArraySlice<UInt8>?
    public private(set) var originalPurchaseDate: ReceiptDate?
    public private(set) var productType: ProductType?
    public private(set) var expiresDate: ReceiptDate?
    public private(set) var webOrderLineItemID: Int64?
    public private(set) var cancellationDate: ReceiptDate?
    public private(set) var isTrialPeriod: Bool?
    public private(set) var isInIntroOfferPeriod: Bool?
    public private(set) var promotionalOfferIDBytes: ArraySlice<UInt8>?

    /// Attribute type numbers of the documented in-app fields.
    public enum AttributeType {
        public static let quantity: Int64 = 1701
        public static let productID: Int64 = 1702
        public static let transactionID: Int64 = 1703
        public static let purchaseDate: Int64 = 1704
        public static let originalTransactionID: Int64 = 1705
        public static let originalPurchaseDate: Int64 = 1706
        public static let productType: Int64 = 1707
        public static let expiresDate: Int64 = 1708
        public static let webOrderLineItemID: Int64 = 1711
        public static let cancellationDate: Int64 = 1712
        public static let isTrialPeriod: Int64 = 1713
        public static let isInIntroOfferPeriod: Int64 = 1719
        public static let promotionalOfferID: Int64 = 1721

        /// `true` for the documented in-app types listed above.
        static func isDocumented(_ type: Int64) -> Bool {
            switch type {
            case 1701...1708, 1711...1713, 1719, 1721: true
            default: false
            }
        }
    }

    /// Decodes the in-app SET carried in a type 17 attribute's value.
    init(attributeValue value: ArraySlice<UInt8>) throws {
        var outer = BERReader(value)
        let set = try outer.read(expecting: .set)
        try outer.expectEnd()
        encoded = set.content
        _ = try set.children()  // enforces the depth limit like every other descent
        var seen = SeenAttributes()
        try AttributeWalker.forEach(inSetContent: set.content) { attribute in
            guard AttributeType.isDocumented(attribute.type) else { return }
            try seen.insert(attribute.type, base: 1700)
            try assign(attribute)
        }
    }

    private mutating func assign(_ attribute: ReceiptAttribute) throws {
        switch attribute.type {
        case AttributeType.quantity: quantity = try attribute.innerInteger()
        case AttributeType.productID: productIDBytes = try attribute.innerOptionalString()
        case AttributeType.transactionID: transactionIDBytes = try attribute.innerOptionalString()
        case AttributeType.purchaseDate: purchaseDate = try attribute.innerDate()
        case AttributeType.originalTransactionID: originalTransactionIDBytes = try attribute.innerOptionalString()
        case AttributeType.originalPurchaseDate: originalPurchaseDate = try attribute.innerDate()
        case AttributeType.productType: productType = ProductType(rawValue: try attribute.innerInteger())
        case AttributeType.expiresDate: expiresDate = try attribute.innerDate()
        case AttributeType.webOrderLineItemID: webOrderLineItemID = try attribute.innerInteger()
        case AttributeType.cancellationDate: cancellationDate = try attribute.innerDate()
        case AttributeType.isTrialPeriod: isTrialPeriod = try attribute.innerBoolean()
        case AttributeType.isInIntroOfferPeriod: isInIntroOfferPeriod = try attribute.innerBoolean()
        case AttributeType.promotionalOfferID: promotionalOfferIDBytes = try attribute.innerOptionalString()
        default: break
        }
    }

    public var productID: String? { productIDBytes?.utf8String }
    public var transactionID: String? { transactionIDBytes?.utf8String }
    public var originalTransactionID: String? { originalTransactionIDBytes?.utf8String }
    public var promotionalOfferID: String? { promotionalOfferIDBytes?.utf8String }

    /// Every attribute of the record in encoded order, documented or not.
    public var attributes: [ReceiptAttribute] { ReceiptAttribute.all(inValidatedSet: encoded) }

    /// The attributes whose type is not one of the documented in-app fields, kept raw.
    public var unknownAttributes: [ReceiptAttribute] {
        attributes.filter { !AttributeType.isDocumented($0.type) }
    }
}
