/// The in-app product type (attribute 1707). Unknown values are kept, not rejected.
public struct ProductType: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64

    public init(rawValue: Int64) { self.rawValue = rawValue }

    public static let nonConsumable = ProductType(rawValue: 0)
    public static let consumable = ProductType(rawValue: 1)
    public static let nonRenewingSubscription = ProductType(rawValue: 2)
    public static let autoRenewableSubscription = ProductType(rawValue: 3)

    public var description: String {
        switch rawValue {
        case 0: "non-consumable"
        case 1: "consumable"
        case 2: "non-renewing subscription"
        case 3: "auto-renewable subscription"
        default: "product type \(rawValue)"
        }
    }
}
