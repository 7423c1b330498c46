/// One subscription in Get All Subscription Statuses: its group, Apple's status and its latest signed transaction
/// and renewal info, each verified.
public struct SignedSubscriptionStatus: Sendable {
    /// `subscriptionGroupIdentifier`.
    public let groupIdentifier: String?
    /// `originalTransactionId`, as the unsigned envelope states it.
    public let originalTransactionID: String?
    /// `status` (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked), unsigned.
    public let status: Int?
    /// `signedTransactionInfo`.
    public let transaction: SignedItem
    /// `signedRenewalInfo`, when present.
    public let renewal: SignedItem?

    public init(
        groupIdentifier: String?, originalTransactionID: String?, status: Int?, transaction: SignedItem,
        renewal: SignedItem?
    ) {
        self.groupIdentifier = groupIdentifier
        self.originalTransactionID = originalTransactionID
        self.status = status
        self.transaction = transaction
        self.renewal = renewal
    }

    /// Whether the transaction and the renewal info (when there is one) both verified.
    public var isValid: Bool { transaction.isValid && (renewal?.isValid ?? true) }
}
