/// A subscription's status as of a notification's `signedDate` (`data.status`).
public enum SubscriptionStatus: Int64, Sendable, Hashable, CaseIterable {
    case active = 1
    case expired = 2
    case billingRetry = 3
    case billingGracePeriod = 4
    /// Refunded, or revoked from Family Sharing.
    case revoked = 5
}
