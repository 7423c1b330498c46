package import ReceiptModel

/// What kind of product a transaction bought, as the ledger records it: from the operator's product catalogue
/// first, else from the receipt's own product type (attribute 1707, often absent), else `unknown`.
public enum ProductKind: String, Sendable, Hashable, CaseIterable {
    case consumable
    case nonConsumable = "non_consumable"
    case autoRenewable = "auto_renewable"
    case nonRenewing = "non_renewing"
    case unknown

    /// The kind a receipt's product type names; `unknown` when it names none or a value Apple never used.
    package init(_ type: ProductType?) {
        switch type {
        case .consumable?: self = .consumable
        case .nonConsumable?: self = .nonConsumable
        case .autoRenewableSubscription?: self = .autoRenewable
        case .nonRenewingSubscription?: self = .nonRenewing
        default: self = .unknown
        }
    }

    /// A StoreKit 2 transaction's `type`; a type Apple adds later is `unknown`.
    package init(jwsType type: AppleEnumeration<JWSProductType>?) {
        switch type?.value {
        case .consumable?: self = .consumable
        case .nonConsumable?: self = .nonConsumable
        case .autoRenewableSubscription?: self = .autoRenewable
        case .nonRenewingSubscription?: self = .nonRenewing
        case nil: self = .unknown
        }
    }
}
