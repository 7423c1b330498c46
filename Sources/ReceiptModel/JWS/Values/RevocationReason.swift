/// Why the App Store refunded or revoked a transaction (`revocationReason`).
public enum RevocationReason: Int64, Sendable, Hashable, CaseIterable {
    /// Another reason, such as an accidental purchase.
    case other = 0
    /// An actual or perceived issue in the app.
    case appIssue = 1
}
