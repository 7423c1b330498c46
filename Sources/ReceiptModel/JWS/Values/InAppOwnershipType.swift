/// Who holds a transaction's purchase (`inAppOwnershipType`).
public enum InAppOwnershipType: String, Sendable, Hashable, CaseIterable {
    /// The customer who bought it.
    case purchased = "PURCHASED"
    /// A family member, through Family Sharing.
    case familyShared = "FAMILY_SHARED"
    /// A member of an organization or group the purchaser assigned it to.
    case assigned = "ASSIGNED"
}
