/// Why a subscription expired (`expirationIntent`).
public enum ExpirationIntent: Int64, Sendable, Hashable, CaseIterable {
    case customerCancelled = 1
    case billingError = 2
    /// The customer did not consent to a price increase (or an offer conversion that needs consent).
    case priceIncreaseNotConsented = 3
    case productUnavailable = 4
    case other = 5
}
