public import ReceiptModel

/// What an account is entitled to at an instant, for one purchase (one original transaction id).
public struct Entitlement: Sendable, Hashable {
    /// The state of an entitlement at the instant asked.
    public enum State: String, Sendable, Hashable {
        case active
        case expired
        case revoked
    }

    /// The product of the purchase's latest transaction at the instant (an upgrade changes it).
    public var productID: String
    public var originalTransactionID: String
    public var kind: ProductKind
    public var state: State
    /// The latest known expiry, for subscriptions.
    public var expiresDate: ReceiptDate?

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
