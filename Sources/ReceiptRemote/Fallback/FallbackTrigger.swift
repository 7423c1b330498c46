public import ReceiptModel
public import ReceiptVerification

/// Why a receipt was (or, with remote off, would have been) sent to Apple.
public enum FallbackTrigger: Sendable, Hashable, CustomStringConvertible {
    /// The local verdict is `inconclusive` for this reason: `ios6.chain_incomplete`, `chain.incomplete`,
    /// `chain.validation_time_unavailable` or `verification.internal_error`, and no check proved it false.
    case localInconclusive(Reason.Code)
    /// The receipt is locally valid, the caller asked for the subscription state at an instant after the
    /// receipt's newest expiry, and gave a shared secret: only Apple knows of later renewals.
    case subscriptionExpiredInReceipt(newestExpiry: ReceiptDate)

    public var description: String {
        switch self {
        case .localInconclusive(let code): "local_inconclusive(\(code))"
        case .subscriptionExpiredInReceipt(let expiry): "subscription_expired_in_receipt(\(expiry))"
        }
    }
}
