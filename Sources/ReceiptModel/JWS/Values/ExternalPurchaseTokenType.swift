/// The kind of custom-link external purchase token (`externalPurchaseToken.tokenType`).
public enum ExternalPurchaseTokenType: String, Sendable, Hashable, CaseIterable {
    case services = "SERVICES"
    case acquisition = "ACQUISITION"
}
