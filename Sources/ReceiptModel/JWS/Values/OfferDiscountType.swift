/// How an offer is paid (`offerDiscountType`).
public enum OfferDiscountType: String, Sendable, Hashable, CaseIterable {
    case freeTrial = "FREE_TRIAL"
    /// A discounted price over one or more periods.
    case payAsYouGo = "PAY_AS_YOU_GO"
    /// A discounted price paid once, up front, for the offer's periods.
    case payUpFront = "PAY_UP_FRONT"
    /// A discount on a consumable, non-consumable or non-renewing purchase (in-app purchase offer codes).
    case oneTime = "ONE_TIME"
}
