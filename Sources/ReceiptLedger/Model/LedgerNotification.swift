public import ReceiptModel

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

    public init(
        id: String, version: String, notificationType: String, subtype: String? = nil, signedDate: ReceiptDate? = nil,
        received: ReceiptDate, originalTransactionID: String? = nil, unverifiedHints: String? = nil
    ) {
        self.id = id
        self.version = version
        self.notificationType = notificationType
        self.subtype = subtype
        self.signedDate = signedDate
        self.received = received
        self.originalTransactionID = originalTransactionID
        self.unverifiedHints = unverifiedHints
    }

    /// The longest id accepted, in UTF-8 bytes.
    public static let maximumIDLength = 128
}
