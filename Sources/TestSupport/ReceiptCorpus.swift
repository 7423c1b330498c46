public import Foundation

/// Valid receipts holding the transactions a test chooses, minted by the built `mint-receipt` under the
/// project's test PKI (`certs/`, so a server trusting `certs/test-root.pem` finds them valid).
///
/// Each receipt is `fixtures/descriptions/valid-sha256.json` with its purchases replaced: consumables, and
/// renewals of auto-renewable subscriptions sharing an original transaction id, as Apple's receipts repeat
/// every earlier renewal of a subscription.
public enum ReceiptCorpus {
    /// One in-app purchase record.
    public struct Purchase: Sendable, Hashable {
        public let transactionID: String
        public let originalTransactionID: String
        /// `true` for a renewal of an auto-renewable subscription, `false` for a consumable.
        public let isSubscription: Bool
        /// Which renewal it is (dates its purchase); 0 for consumables.
        public let period: Int

        /// A consumable: its own original transaction.
        public static func consumable(_ id: String) -> Purchase {
            Purchase(transactionID: id, originalTransactionID: id, isSubscription: false, period: 0)
        }

        /// The `period`th renewal (0 is the first purchase) of the subscription whose first transaction is
        /// `original`.
        public static func renewal(_ id: String, of original: String, period: Int) -> Purchase {
            Purchase(transactionID: id, originalTransactionID: original, isSubscription: true, period: period)
        }
    }

    /// A minted receipt and what it holds.
    public struct Receipt: Sendable {
        public let bytes: [UInt8]
        public let purchases: [Purchase]

        public var transactionIDs: [String] { purchases.map(\.transactionID) }
        public var originalTransactionIDs: Set<String> { Set(purchases.map(\.originalTransactionID)) }
        public var base64: String { Data(bytes).base64EncodedString() }
    }

    /// mint-receipt failed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Mints one receipt per purchase list, in one run of `mint-receipt` writing into `folder`.
    public static func mint(_ receipts: [[Purchase]], in folder: URL) async throws -> [Receipt] {
        let template = try SharedTestData.json(
            at: SharedTestData.packageRoot.appendingPathComponent("fixtures/descriptions/valid-sha256.json"))
        guard var description = template["receipt"] as? [String: Any],
            let records = description["inAppPurchases"] as? [[String: Any]], records.count > 2
        else { throw Failure(description: "valid-sha256.json has changed shape") }
        var consumable = records[0]
        var subscription = records[2]
        for key in ["extraAttributes", "promotionalOfferID"] {
            consumable[key] = nil
            subscription[key] = nil
        }
        var request = template
        request["expected"] = nil

        var names: [String] = []
        for (index, purchases) in receipts.enumerated() {
            description["inAppPurchases"] = purchases.map { purchase -> [String: Any] in
                var record = purchase.isSubscription ? subscription : consumable
                record["transactionID"] = purchase.transactionID
                record["originalTransactionID"] = purchase.originalTransactionID
                if purchase.isSubscription {
                    let month = 1 + purchase.period % 5
                    record["purchaseDate"] = "2025-0\(month)-20T17:39:08Z"
                    record["expiresDate"] = "2025-0\(month + 1)-20T17:39:08Z"
                    record["isInIntroOfferPeriod"] = false
                    record["webOrderLineItemID"] = Int64(purchase.transactionID) ?? Int64(index)
                }
                return record
            }
            request["receipt"] = description
            let name = String(format: "receipt-%05d", index)
            try JSONSerialization.data(withJSONObject: request).write(
                to: folder.appendingPathComponent("\(name).json"))
            names.append(name)
        }
        let outcome = try await CommandRunner("mint-receipt").run(
            ["--pki", SharedTestData.packageRoot.appendingPathComponent("certs").path, "--output-dir", folder.path]
                + names.map { folder.appendingPathComponent("\($0).json").path })
        guard outcome.status == 0 else { throw Failure(description: "mint-receipt: \(outcome.standardError)") }
        return try zip(names, receipts).map { name, purchases in
            Receipt(
                bytes: try SharedTestData.bytes(at: folder.appendingPathComponent("\(name).receipt")),
                purchases: purchases)
        }
    }
}
