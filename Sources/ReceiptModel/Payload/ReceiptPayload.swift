@_spi(Fuzzing) import BER

/// The decoded receipt payload: `ReceiptPayload ::= SET OF ReceiptAttribute`.
///
/// Documented attributes become typed fields (64-bit integers, ``ReceiptDate``s, strings kept as
/// slices of the input); every attribute, documented or not, stays available through
/// ``attributes``, so nothing in a receipt is lost.
public struct ReceiptPayload: Sendable {
    /// The content of the payload's SET, as received.
    public let encoded: ArraySlice<UInt8>

    public private(set) var receiptTypeBytes: ArraySlice<UInt8>?
    public private(set) var appItemID: Int64?
    public private(set) var bundleIDBytes: ArraySlice<UInt8>?
    /// The bundle id attribute's whole value (the DER UTF8String): the device hash covers these bytes.
    public private(set) var bundleIDValue: ArraySlice<UInt8>?
    public private(set) var applicationVersionBytes: ArraySlice<UInt8>?
    public private(set) var opaqueValue: ArraySlice<UInt8>?
    public private(set) var sha1Hash: ArraySlice<UInt8>?
    public private(set) var ageRatingBytes: ArraySlice<UInt8>?
    public private(set) var creationDate: ReceiptDate?
    public private(set) var downloadID: Int64?
    public private(set) var versionExternalIdentifier: Int64?
    public private(set) var originalPurchaseDate: ReceiptDate?
    public private(set) var originalApplicationVersionBytes: ArraySlice<UInt8>?
    public private(set) var expirationDate: ReceiptDate?
    /// The in-app purchase records (type 17), in receipt order.
    public private(set) var inAppPurchases: [InAppPurchase] = []

    /// Attribute type numbers of the documented top-level fields.
    public enum AttributeType {
        public static let receiptType: Int64 = 0
        public static let appItemID: Int64 = 1
        public static let bundleID: Int64 = 2
        public static let applicationVersion: Int64 = 3
        public static let opaqueValue: Int64 = 4
        public static let sha1Hash: Int64 = 5
        public static let ageRating: Int64 = 10
        public static let creationDate: Int64 = 12
        public static let downloadID: Int64 = 15
        public static let versionExternalIdentifier: Int64 = 16
        public static let inAppPurchase: Int64 = 17
        public static let originalPurchaseDate: Int64 = 18
        public static let originalApplicationVersion: Int64 = 19
        public static let expirationDate: Int64 = 21

        /// `true` for the documented top-level types listed above.
        static func isDocumented(_ type: Int64) -> Bool {
            switch type {
            case 0...5, 10, 12, 15...19, 21: true
            default: false
            }
        }
    }

    /// Decodes the payload bytes (the unwrapped eContent of the receipt's SignedData).
    public init(berEncoded bytes: ArraySlice<UInt8>) throws(ReceiptError) {
        do {
            var outer = BERReader(bytes)
            guard let set = try outer.next(), set.tag == .set else {
                throw ReceiptError(.invalidPayload, "the payload is not a SET OF ReceiptAttribute")
            }
            try outer.expectEnd()
            encoded = set.content
            _ = try set.children()  // enforces the depth limit like every other descent
            // The in-app records are decoded once all are found, into an array of exactly their count: a record
            // is some 300 bytes as a value, and as few as 12 encoded, so an array grown as they came would be
            // copied and mapped afresh several times over for a receipt packed with empty ones (BENCHMARKS.md).
            var records: [ArraySlice<UInt8>] = []
            records.reserveCapacity(set.content.count / 150)
            var seen = SeenAttributes()
            do {
                try AttributeWalker.forEach(inSetContent: set.content, where: AttributeType.isDocumented) { attribute in
                    if attribute.type == AttributeType.inAppPurchase {
                        records.append(attribute.value)
                    } else {
                        try seen.insert(attribute.type, base: 0)
                        try assign(attribute)
                    }
                }
            } catch {
                // The first error in reading order wins, as when each record was decoded where it was found: a
                // record before the attribute that failed reports its own error first.
                for record in records { _ = try InAppPurchase(attributeValue: record) }
                throw error
            }
            inAppPurchases = try records.map { try InAppPurchase(attributeValue: $0) }  // `map` reserves `count`
        } catch {
            throw ReceiptError(mapping: error, while: "reading the receipt payload")
        }
    }

    private mutating func assign(_ attribute: ReceiptAttribute) throws {
        switch attribute.type {
        case AttributeType.receiptType: receiptTypeBytes = try attribute.innerOptionalString()
        case AttributeType.appItemID: appItemID = try attribute.innerInteger()
        case AttributeType.bundleID:
            bundleIDBytes = try attribute.innerOptionalString()
            bundleIDValue = attribute.value
        case AttributeType.applicationVersion: applicationVersionBytes = try attribute.innerOptionalString()
        case AttributeType.opaqueValue: opaqueValue = attribute.value
        case AttributeType.sha1Hash: sha1Hash = attribute.value
        case AttributeType.ageRating: ageRatingBytes = try attribute.innerOptionalString()
        case AttributeType.creationDate: creationDate = try attribute.innerDate()
        case AttributeType.downloadID: downloadID = try attribute.innerInteger()
        case AttributeType.versionExternalIdentifier: versionExternalIdentifier = try attribute.innerInteger()
        case AttributeType.originalPurchaseDate: originalPurchaseDate = try attribute.innerDate()
        case AttributeType.originalApplicationVersion:
            originalApplicationVersionBytes = try attribute.innerOptionalString()
        case AttributeType.expirationDate: expirationDate = try attribute.innerDate()
        default: break
        }
    }

    /// `Production`, `ProductionSandbox`, `Xcode`, `ProductionVPP` or `ProductionVPPSandbox`.
    public var receiptType: String? { receiptTypeBytes?.utf8String }
    public var bundleID: String? { bundleIDBytes?.utf8String }
    public var applicationVersion: String? { applicationVersionBytes?.utf8String }
    public var ageRating: String? { ageRatingBytes?.utf8String }
    public var originalApplicationVersion: String? { originalApplicationVersionBytes?.utf8String }

    /// Every top-level attribute in encoded order, documented or not (in-app records included as
    /// their raw type 17 attributes).
    public var attributes: [ReceiptAttribute] { ReceiptAttribute.all(inValidatedSet: encoded) }

    /// The top-level attributes whose type is not documented, kept raw.
    public var unknownAttributes: [ReceiptAttribute] {
        attributes.filter { !AttributeType.isDocumented($0.type) }
    }
}
