/// Whether the customer consented to a price increase (`priceIncreaseStatus`).
public enum PriceIncreaseStatus: Int64, Sendable, Hashable, CaseIterable {
    /// Not yet responded to an increase that needs consent.
    case notResponded = 0
    /// Consented, or was told of an increase that needs none.
    case consented = 1
}
