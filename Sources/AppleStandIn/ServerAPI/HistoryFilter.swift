import ReceiptForge

/// Get Transaction History's query filters: `productId`, `productType`, `subscriptionGroupIdentifier`
/// (repeatable), `startDate` ≤ `purchaseDate` < `endDate` (UNIX ms), `revoked`, `inAppOwnershipType`.
struct HistoryFilter {
    var productIDs: Set<String>
    var productTypes: Set<String>
    var groups: Set<String>
    var startDate: Int64?
    var endDate: Int64?
    var revoked: Bool?
    var ownership: String?

    /// Apple's `productType` values and the payload's `type` they select.
    static let productTypes = [
        "AUTO_RENEWABLE": "Auto-Renewable Subscription", "NON_RENEWABLE": "Non-Renewing Subscription",
        "CONSUMABLE": "Consumable", "NON_CONSUMABLE": "Non-Consumable",
    ]

    /// The filters of `exchange`'s query; `nil` when a date or `revoked` is not what Apple accepts.
    init?(_ exchange: ServerAPIExchange) {
        productIDs = Set(exchange.values("productId"))
        productTypes = Set(exchange.values("productType").map { Self.productTypes[$0] ?? $0 })
        groups = Set(exchange.values("subscriptionGroupIdentifier"))
        ownership = exchange.value("inAppOwnershipType")
        let start = exchange.value("startDate")
        let end = exchange.value("endDate")
        startDate = start.flatMap { Int64($0) }
        endDate = end.flatMap { Int64($0) }
        if (start != nil && startDate == nil) || (end != nil && endDate == nil) { return nil }
        switch exchange.value("revoked") {
        case nil: revoked = nil
        case "true": revoked = true
        case "false": revoked = false
        default: return nil
        }
    }

    func admits(_ transaction: JWSTransactionDescription) -> Bool {
        if !productIDs.isEmpty, !productIDs.contains(transaction.productId ?? "") { return false }
        if !productTypes.isEmpty, !productTypes.contains(transaction.type ?? "") { return false }
        if !groups.isEmpty, !groups.contains(transaction.subscriptionGroupIdentifier ?? "") { return false }
        if let ownership, transaction.inAppOwnershipType != ownership { return false }
        if let revoked, (transaction.revocationDate != nil) != revoked { return false }
        let purchased = transaction.purchaseDate ?? 0
        if let startDate, purchased < startDate { return false }
        if let endDate, purchased >= endDate { return false }
        return true
    }
}
