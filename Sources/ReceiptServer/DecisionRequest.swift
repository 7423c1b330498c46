public import ReceiptModel
public import ReceiptVerification

/// Everything a ``ReceiptDecider`` is told about one request: the receipt as the client sent it and
/// the request's options, with "now" already read by the server.
public struct DecisionRequest: Sendable {
    /// The receipt exactly as sent: base64 text (verifyReceipt's `receipt-data`) or raw bytes.
    public var receiptData: [UInt8]
    /// verifyReceipt's `password` (the app's shared secret), when the client sent one.
    public var password: String?
    /// verifyReceipt's `exclude-old-transactions`.
    public var excludeOldTransactions: Bool
    /// The URL the client called; a remote fallback asks the matching Apple endpoint first.
    public var endpoint: AppleEndpoint
    /// The instant (or rule) the chain is validated at.
    public var validationTime: ValidationTime
    /// `false` forbids asking Apple for this request, whatever the server's configuration.
    public var allowsRemote: Bool
    /// "Now", when the client asked for subscription state (it sent a shared secret): a remote fallback
    /// asks Apple for renewals when the receipt's newest expiry is before it. `nil`: the receipt alone.
    public var subscriptionStateAt: ReceiptDate?

    public init(
        receiptData: [UInt8], password: String? = nil, excludeOldTransactions: Bool = false,
        endpoint: AppleEndpoint = .production, validationTime: ValidationTime = .receiptCreation,
        allowsRemote: Bool = true, subscriptionStateAt: ReceiptDate? = nil
    ) {
        self.receiptData = receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
        self.endpoint = endpoint
        self.validationTime = validationTime
        self.allowsRemote = allowsRemote
        self.subscriptionStateAt = subscriptionStateAt
    }
}
