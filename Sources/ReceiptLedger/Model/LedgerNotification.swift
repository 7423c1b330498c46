public import ReceiptModel
public import ReceiptVerification

/// One App Store Server Notification as the ledger records it: the key that makes a retry a no-op, and what it
/// was. A V1 notification's unsigned `latest_receipt_info` and `pending_renewal_info` are kept as
/// ``unverifiedHints``, never acted on.
public struct LedgerNotification: Sendable, Hashable {
    /// V2: Apple's `notificationUUID`. V1 has none: the SHA-256 of its verified `latest_receipt` and its type.
    public var id: String
    /// `1` or `2`.
    public var version: String
    public var notificationType: String
    public var subtype: String?
    /// When Apple signed it (V2).
    public var signedDate: ReceiptDate?
    public var received: ReceiptDate
    /// The subscription it is about, when it names one.
    public var originalTransactionID: String?
    /// V1 only: the body's unsigned members, as received (JSON text), marked unverified.
    public var unverifiedHints: String?
    /// V2: the bundle id of the app it is about, as Apple signed it (`data`, `summary`, `externalPurchaseToken` or
    /// `appData`); `nil` for V1, whose bundle id is only in the receipt, and for a V2 notification naming none.
    /// With ``environment`` it says whose backfill the notification counts for
    /// (``Ledger/latestNotificationSignedDate(bundleID:environment:)``).
    public var bundleID: String?
    /// V2: the environment it is about, as Apple signed it; `nil` for V1 and for a V2 notification naming none.
    public var environment: ReceiptEnvironment?

    public init(
        id: String, version: String, notificationType: String, subtype: String? = nil, signedDate: ReceiptDate? = nil,
        received: ReceiptDate, originalTransactionID: String? = nil, unverifiedHints: String? = nil,
        bundleID: String? = nil, environment: ReceiptEnvironment? = nil
    ) {
        self.id = id
        self.version = version
        self.notificationType = notificationType
        self.subtype = subtype
        self.signedDate = signedDate
        self.received = received
        self.originalTransactionID = originalTransactionID
        self.unverifiedHints = unverifiedHints
        self.bundleID = bundleID
        self.environment = environment
    }

    /// The ``version`` of an App Store Server Notification V2, as the ledger records it.
    package static let version2 = "2"

    /// The longest id accepted, in UTF-8 bytes.
    public static let maximumIDLength = 128
}
