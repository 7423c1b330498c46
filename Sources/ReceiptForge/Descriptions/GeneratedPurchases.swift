/// Many purchases described in a few numbers, for large fixtures whose JSON stays small.
///
/// Purchase `i` (from 0) buys `productIDs[i % productIDs.count]` as transaction
/// `firstTransactionID + i`, at `firstPurchaseDate + i * intervalSeconds`; every fifth is a
/// subscription renewal sharing the first transaction id as original, with an expiry a week later
/// and a web order line item id. Deterministic: the same numbers always give the same purchases.
/// Arithmetic wraps rather than traps, so absurd numbers in a request make odd purchases, not a crash.
public struct GeneratedPurchases: Hashable, Sendable, Codable {
    public var count: Int
    public var productIDs: [String]
    public var firstTransactionID: Int64
    /// Seconds since 1970.
    public var firstPurchaseDate: Int64
    public var intervalSeconds: Int64

    public init(
        count: Int, productIDs: [String], firstTransactionID: Int64, firstPurchaseDate: Int64,
        intervalSeconds: Int64
    ) {
        self.count = count
        self.productIDs = productIDs
        self.firstTransactionID = firstTransactionID
        self.firstPurchaseDate = firstPurchaseDate
        self.intervalSeconds = intervalSeconds
    }

    /// The purchases.
    public func purchases() -> [InAppPurchaseDescription] {
        guard count > 0, !productIDs.isEmpty else { return [] }
        return (0..<count).map { index in
            let i = Int64(index)
            let purchased = firstPurchaseDate &+ i &* intervalSeconds
            let isRenewal = index % 5 == 4
            return InAppPurchaseDescription(
                quantity: 1,
                productID: productIDs[index % productIDs.count],
                transactionID: String(firstTransactionID &+ i),
                purchaseDate: RFC3339.format(secondsSince1970: purchased),
                originalTransactionID: String(isRenewal ? firstTransactionID : firstTransactionID &+ i),
                originalPurchaseDate: RFC3339.format(secondsSince1970: isRenewal ? firstPurchaseDate : purchased),
                productType: isRenewal ? 3 : 1,
                expiresDate: isRenewal ? RFC3339.format(secondsSince1970: purchased &+ 7 * 86_400) : "",
                webOrderLineItemID: isRenewal ? 2_000_000_000_000 &+ i : nil,
                cancellationDate: "",
                isTrialPeriod: false,
                isInIntroOfferPeriod: false
            )
        }
    }
}
