public import ReceiptModel
public import ReceiptVerification

/// What an account is entitled to at an instant, for one purchase (one original transaction id).
public struct Entitlement: Sendable, Hashable {
    /// The state of an entitlement at the instant asked.
    public enum State: String, Sendable, Hashable {
        case active
        /// Expired, but Apple is retrying the payment and the customer keeps access until the grace period ends.
        case gracePeriod = "grace_period"
        /// Expired, and Apple is retrying the payment (no grace period, or it ended).
        case billingRetry = "billing_retry"
        case expired
        case revoked
    }

    /// The product of the purchase's latest transaction at the instant (an upgrade changes it).
    public var productID: String
    public var originalTransactionID: String
    public var kind: ProductKind
    /// The app the purchase was made in, and Apple's environment for it (`nil` when the source did not say): a
    /// Sandbox purchase is never a paid one.
    public var bundleID = ""
    public var environment: ReceiptEnvironment?
    public var state: State
    /// The latest known expiry, for subscriptions.
    public var expiresDate: ReceiptDate?
    /// Auto-renewable subscriptions with verified renewal info: whether it renews (1) or not (0), and into what.
    public var autoRenewStatus: Int64?
    public var autoRenewProductID: String?
    /// The end of the grace period, while one applies.
    public var gracePeriodExpiresDate: ReceiptDate?

    public init(
        productID: String, originalTransactionID: String, kind: ProductKind, state: State, expiresDate: ReceiptDate?
    ) {
        self.productID = productID
        self.originalTransactionID = originalTransactionID
        self.kind = kind
        self.state = state
        self.expiresDate = expiresDate
    }
}
