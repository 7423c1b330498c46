/// The kind of offer a transaction or the next renewal applies (`offerType`).
public enum OfferType: Int64, Sendable, Hashable, CaseIterable {
    case introductory = 1
    case promotional = 2
    /// A subscription or in-app purchase offer code.
    case offerCode = 3
    case winBack = 4
}
