/// What a revocation was (`revocationType`).
public enum RevocationType: String, Sendable, Hashable, CaseIterable {
    case refundFull = "REFUND_FULL"
    /// Part of the price refunded: see `revocationPercentage`.
    case refundProrated = "REFUND_PRORATED"
    /// Family Sharing access removed.
    case familyRevoke = "FAMILY_REVOKE"
    /// An organization or group purchaser removed an assigned purchase.
    case assignmentRevoke = "ASSIGNMENT_REVOKE"
}
