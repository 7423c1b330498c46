@_spi(Fuzzing) import BER

/// One in-app purchase record: the `SET OF ReceiptAttribute` inside a type 17 attribute.
///
/// Documented fields are decoded once into compact storage (integers, dates as milliseconds,
/// strings as ranges of the record's bytes, handed out as slices of them); `String`s are made only
/// when asked for, because creating them costs more than walking the bytes. Every attribute, known
/// or not, stays available through ``attributes``.
public struct InAppPurchase: Sendable {
    /// The content of the purchase's SET OF ReceiptAttribute, as received.
    public let encoded: ArraySlice<UInt8>

    public private(set) var quantity: Int64?
    public var productIDBytes: ArraySlice<UInt8>? { storedProductID?.bytes(in: encoded) }
    public var transactionIDBytes: ArraySlice<UInt8>? { storedTransactionID?.bytes(in: encoded) }
    public private(set) var purchaseDate: ReceiptDate?
    public var originalTransactionIDBytes: ArraySlice<UInt8>? { storedOriginalTransactionID?.bytes(in: encoded) }
    public private(set) var originalPurchaseDate: ReceiptDate?
    public private(set) var productType: ProductType?
    public private(set) var expiresDate: ReceiptDate?
    public private(set) var webOrderLineItemID: Int64?
    public private(set) var cancellationDate: ReceiptDate?
    public private(set) var isTrialPeriod: Bool?
    public private(set) var isInIntroOfferPeriod: Bool?
    public var promotionalOfferIDBytes: ArraySlice<UInt8>? { storedPromotionalOfferID?.bytes(in: encoded) }

    // The strings, as ranges of `encoded` (``StoredBytes``): a copy of the record retains only `encoded`.
    private var storedProductID: StoredBytes?
    private var storedTransactionID: StoredBytes?
    private var storedOriginalTransactionID: StoredBytes?
    private var storedPromotionalOfferID: StoredBytes?

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
    /// - Parameter fastPath: `false` reads the record's SET and every attribute the general way (the reference the
    ///   in-place reading is tested against).
    init(attributeValue value: ArraySlice<UInt8>, fastPath: Bool = true) throws {
        let content = try Self.setContent(value, fastPath: fastPath)
        var seen = SeenAttributes()
        // Filled as a local and moved into `self` at the end: a closure that captured `self` would box it, and
        // the purchase would be copied out of the box (a retain of each of its slices).
        var purchase = InAppPurchase(encoded: content)
        try AttributeWalker.walk(
            content, fastPath: fastPath, wanted: AttributeType.isDocumented,
            fast: { type, version, buffer, value in
                try seen.insert(type, base: 1700)
                // Read in place; an unusual shape is read the general way, which also says what is wrong with it.
                guard !purchase.assign(type, AttributeValueView(buffer: buffer, value: value), base: content.startIndex)
                else { return }
                let bytes = content[(content.startIndex + value.lowerBound)..<(content.startIndex + value.upperBound)]
                try purchase.assign(ReceiptAttribute(type: type, version: version, value: bytes))
            },
            general: { attribute in
                try seen.insert(attribute.type, base: 1700)
                try purchase.assign(attribute)
            })
        self = purchase
    }

    /// The content of the SET that `value` holds. A SET of definite length that fills the value, the shape Apple
    /// writes, is read in place, without the general reader's elements (a retained slice each); any other value is
    /// read, and refused, the general way.
    private static func setContent(_ value: ArraySlice<UInt8>, fastPath: Bool) throws -> ArraySlice<UInt8> {
        if fastPath,
            let set = value.withUnsafeBufferPointer({ AttributeWalker.header($0, at: 0, end: $0.count) }),
            set.tag == 0x31, set.contentEnd == value.count  // universal, constructed, number 17: a SET (X.690 8.12)
        {
            return value[(value.startIndex + set.contentStart)..<(value.startIndex + set.contentEnd)]
        }
        var outer = BERReader(value)
        let set = try outer.read(expecting: .set)
        try outer.expectEnd()
        _ = try set.children()  // enforces the depth limit like every other descent
        return set.content
    }

    /// Assigns the documented attribute `type` from its value read in place, when the value has the shape Apple
    /// writes; `false` (nothing assigned) otherwise. `base` is the index of the buffer's offset 0 in `encoded`.
    private mutating func assign(_ type: Int64, _ value: AttributeValueView, base: Int) -> Bool {
        func string() -> StoredBytes?? {
            guard let range = value.string() else { return nil }
            return .some(range.isEmpty ? nil : .within((base + range.lowerBound)..<(base + range.upperBound)))
        }
        switch type {
        case AttributeType.quantity:
            guard let read = value.integer() else { return false }
            quantity = read
        case AttributeType.productID:
            guard let read = string() else { return false }
            storedProductID = read
        case AttributeType.transactionID:
            guard let read = string() else { return false }
            storedTransactionID = read
        case AttributeType.purchaseDate:
            guard let read = value.date() else { return false }
            purchaseDate = read
        case AttributeType.originalTransactionID:
            guard let read = string() else { return false }
            storedOriginalTransactionID = read
        case AttributeType.originalPurchaseDate:
            guard let read = value.date() else { return false }
            originalPurchaseDate = read
        case AttributeType.productType:
            guard let read = value.integer() else { return false }
            productType = ProductType(rawValue: read)
        case AttributeType.expiresDate:
            guard let read = value.date() else { return false }
            expiresDate = read
        case AttributeType.webOrderLineItemID:
            guard let read = value.integer() else { return false }
            webOrderLineItemID = read
        case AttributeType.cancellationDate:
            guard let read = value.date() else { return false }
            cancellationDate = read
        case AttributeType.isTrialPeriod:
            guard let read = value.boolean() else { return false }
            isTrialPeriod = read
        case AttributeType.isInIntroOfferPeriod:
            guard let read = value.boolean() else { return false }
            isInIntroOfferPeriod = read
        case AttributeType.promotionalOfferID:
            guard let read = string() else { return false }
            storedPromotionalOfferID = read
        default: return false
        }
        return true
    }

    private init(encoded: ArraySlice<UInt8>) {
        self.encoded = encoded
    }

    private mutating func assign(_ attribute: ReceiptAttribute) throws {
        switch attribute.type {
        case AttributeType.quantity: quantity = try attribute.innerInteger()
        case AttributeType.productID: storedProductID = try stored(attribute.innerOptionalString())
        case AttributeType.transactionID: storedTransactionID = try stored(attribute.innerOptionalString())
        case AttributeType.purchaseDate: purchaseDate = try attribute.innerDate()
        case AttributeType.originalTransactionID:
            storedOriginalTransactionID = try stored(attribute.innerOptionalString())
        case AttributeType.originalPurchaseDate: originalPurchaseDate = try attribute.innerDate()
        case AttributeType.productType: productType = ProductType(rawValue: try attribute.innerInteger())
        case AttributeType.expiresDate: expiresDate = try attribute.innerDate()
        case AttributeType.webOrderLineItemID: webOrderLineItemID = try attribute.innerInteger()
        case AttributeType.cancellationDate: cancellationDate = try attribute.innerDate()
        case AttributeType.isTrialPeriod: isTrialPeriod = try attribute.innerBoolean()
        case AttributeType.isInIntroOfferPeriod: isInIntroOfferPeriod = try attribute.innerBoolean()
        case AttributeType.promotionalOfferID: storedPromotionalOfferID = try stored(attribute.innerOptionalString())
        default: break
        }
    }

    /// A decoded string, as this record stores it.
    private func stored(_ bytes: ArraySlice<UInt8>?) -> StoredBytes? {
        bytes.map { StoredBytes($0, in: encoded) }
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
