/// The content of an App Store receipt payload, as the forge will encode it.
///
/// Every field of the payload table in `docs/receipt-format.md` §3.1 is here under the name the
/// `ReceiptModel` decoder uses, so a minted receipt decodes back to the same values. `nil` leaves
/// the attribute out; dates are written exactly as given (any RFC 3339 form, or `""`, which Apple
/// uses for "absent"); `extraAttributes` carries undocumented or deliberately odd attributes.
///
/// Attributes are written in DER `SET OF` order, as Apple's are (sorted by their encoding).
public struct ReceiptDescription: Hashable, Sendable, Codable {
    /// Type 0: `Production`, `ProductionSandbox`, `Xcode`, … (UTF8String).
    public var receiptType: String?
    /// Type 1: the app's item id, `0` in the sandbox (INTEGER).
    package var appItemID: Int64?
    /// Type 2: the bundle identifier (UTF8String).
    public var bundleID: String?
    /// Type 3: the app version (UTF8String).
    public var applicationVersion: String?
    /// Type 4: the opaque value (raw bytes).
    package var opaqueValue: ByteString?
    /// Type 5: the SHA-1 device hash (raw bytes, normally 20).
    package var sha1Hash: ByteString?
    /// Type 10: the age rating, e.g. `4+` (IA5String).
    public var ageRating: String?
    /// Type 12: the receipt creation date (IA5String).
    public var creationDate: String?
    /// Type 15: the download id (INTEGER).
    package var downloadID: Int64?
    /// Type 16: the version external identifier (INTEGER).
    public var versionExternalIdentifier: Int64?
    /// Type 18: the original purchase date (IA5String).
    public var originalPurchaseDate: String?
    /// Type 19: the original application version (UTF8String).
    public var originalApplicationVersion: String?
    /// Type 21: the expiration date (IA5String).
    public var expirationDate: String?
    /// Type 17, once per purchase.
    public var inAppPurchases: [InAppPurchaseDescription]
    /// Further top-level attributes written as given.
    public var extraAttributes: [RawAttributeDescription]

    /// A description; every field defaults to absent.
    public init(
        receiptType: String? = nil, appItemID: Int64? = nil, bundleID: String? = nil,
        applicationVersion: String? = nil, opaqueValue: ByteString? = nil, sha1Hash: ByteString? = nil,
        ageRating: String? = nil, creationDate: String? = nil, downloadID: Int64? = nil,
        versionExternalIdentifier: Int64? = nil, originalPurchaseDate: String? = nil,
        originalApplicationVersion: String? = nil, expirationDate: String? = nil,
        inAppPurchases: [InAppPurchaseDescription] = [], extraAttributes: [RawAttributeDescription] = []
    ) {
        self.receiptType = receiptType
        self.appItemID = appItemID
        self.bundleID = bundleID
        self.applicationVersion = applicationVersion
        self.opaqueValue = opaqueValue
        self.sha1Hash = sha1Hash
        self.ageRating = ageRating
        self.creationDate = creationDate
        self.downloadID = downloadID
        self.versionExternalIdentifier = versionExternalIdentifier
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.expirationDate = expirationDate
        self.inAppPurchases = inAppPurchases
        self.extraAttributes = extraAttributes
    }

    private enum CodingKeys: String, CodingKey {
        case receiptType, appItemID, bundleID, applicationVersion, opaqueValue, sha1Hash, ageRating, creationDate
        case downloadID, versionExternalIdentifier, originalPurchaseDate, originalApplicationVersion
        case expirationDate, inAppPurchases, extraAttributes
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            receiptType: try c.decodeIfPresent(String.self, forKey: .receiptType),
            appItemID: try c.decodeIfPresent(Int64.self, forKey: .appItemID),
            bundleID: try c.decodeIfPresent(String.self, forKey: .bundleID),
            applicationVersion: try c.decodeIfPresent(String.self, forKey: .applicationVersion),
            opaqueValue: try c.decodeIfPresent(ByteString.self, forKey: .opaqueValue),
            sha1Hash: try c.decodeIfPresent(ByteString.self, forKey: .sha1Hash),
            ageRating: try c.decodeIfPresent(String.self, forKey: .ageRating),
            creationDate: try c.decodeIfPresent(String.self, forKey: .creationDate),
            downloadID: try c.decodeIfPresent(Int64.self, forKey: .downloadID),
            versionExternalIdentifier: try c.decodeIfPresent(Int64.self, forKey: .versionExternalIdentifier),
            originalPurchaseDate: try c.decodeIfPresent(String.self, forKey: .originalPurchaseDate),
            originalApplicationVersion: try c.decodeIfPresent(String.self, forKey: .originalApplicationVersion),
            expirationDate: try c.decodeIfPresent(String.self, forKey: .expirationDate),
            inAppPurchases: try c.decodeIfPresent([InAppPurchaseDescription].self, forKey: .inAppPurchases) ?? [],
            extraAttributes: try c.decodeIfPresent([RawAttributeDescription].self, forKey: .extraAttributes) ?? []
        )
    }

    /// Writes absent fields and empty lists not at all, so committed JSON stays short.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(receiptType, forKey: .receiptType)
        try c.encodeIfPresent(appItemID, forKey: .appItemID)
        try c.encodeIfPresent(bundleID, forKey: .bundleID)
        try c.encodeIfPresent(applicationVersion, forKey: .applicationVersion)
        try c.encodeIfPresent(opaqueValue, forKey: .opaqueValue)
        try c.encodeIfPresent(sha1Hash, forKey: .sha1Hash)
        try c.encodeIfPresent(ageRating, forKey: .ageRating)
        try c.encodeIfPresent(creationDate, forKey: .creationDate)
        try c.encodeIfPresent(downloadID, forKey: .downloadID)
        try c.encodeIfPresent(versionExternalIdentifier, forKey: .versionExternalIdentifier)
        try c.encodeIfPresent(originalPurchaseDate, forKey: .originalPurchaseDate)
        try c.encodeIfPresent(originalApplicationVersion, forKey: .originalApplicationVersion)
        try c.encodeIfPresent(expirationDate, forKey: .expirationDate)
        if !inAppPurchases.isEmpty { try c.encode(inAppPurchases, forKey: .inAppPurchases) }
        if !extraAttributes.isEmpty { try c.encode(extraAttributes, forKey: .extraAttributes) }
    }
}
