public import ReceiptModel

/// The filters of Get Transaction History (v2): sent unchanged on every page of a walk.
public struct TransactionHistoryFilter: Sendable, Hashable {
    /// The order Apple sorts by `revision`.
    public enum Order: String, Sendable, Hashable {
        case ascending = "ASCENDING"
        case descending = "DESCENDING"
    }

    public var order: Order?
    /// Transactions purchased at or after this instant.
    public var startDate: ReceiptDate?
    /// Transactions purchased before this instant.
    public var endDate: ReceiptDate?
    public var productIDs: [String]
    /// `AUTO_RENEWABLE`, `NON_RENEWABLE`, `CONSUMABLE`, `NON_CONSUMABLE`.
    public var productTypes: [String]
    public var subscriptionGroupIdentifiers: [String]
    /// `FAMILY_SHARED` or `PURCHASED`.
    public var inAppOwnershipType: String?
    public var revoked: Bool?

    public init(
        order: Order? = nil, startDate: ReceiptDate? = nil, endDate: ReceiptDate? = nil, productIDs: [String] = [],
        productTypes: [String] = [], subscriptionGroupIdentifiers: [String] = [], inAppOwnershipType: String? = nil,
        revoked: Bool? = nil
    ) {
        self.order = order
        self.startDate = startDate
        self.endDate = endDate
        self.productIDs = productIDs
        self.productTypes = productTypes
        self.subscriptionGroupIdentifiers = subscriptionGroupIdentifiers
        self.inAppOwnershipType = inAppOwnershipType
        self.revoked = revoked
    }

    /// The query's name and value pairs, in a fixed order.
    var query: [(name: String, value: String)] {
        var query: [(name: String, value: String)] = []
        if let order { query.append(("sort", order.rawValue)) }
        if let startDate { query.append(("startDate", "\(startDate.millisecondsSince1970)")) }
        if let endDate { query.append(("endDate", "\(endDate.millisecondsSince1970)")) }
        query += productIDs.map { ("productId", $0) }
        query += productTypes.map { ("productType", $0) }
        query += subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
        if let inAppOwnershipType { query.append(("inAppOwnershipType", inAppOwnershipType)) }
        if let revoked { query.append(("revoked", revoked ? "true" : "false")) }
        return query
    }
}
