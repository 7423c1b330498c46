import ReceiptForge
import ReceiptVerification

/// ``ServerAPIData`` with every JWS minted once, when it is served: the answers then only pick and page.
struct MintedServerAPIData: Sendable {
    /// One transaction and its JWS.
    struct Transaction: Sendable {
        var description: ServerAPITransaction
        var signedTransaction: String
        /// Minted for auto-renewable subscriptions only.
        var signedRenewalInfo: String?
    }

    /// One notification and its JWS.
    struct Notification: Sendable {
        var description: NotificationV2Description
        var signedPayload: String
    }

    let bundleID: String
    let appAppleID: Int64?
    /// Oldest purchase first (ties by transaction id).
    let transactions: [Transaction]
    /// Oldest `signedDate` first.
    let notifications: [Notification]
    /// Mints test notifications (`POST /inApps/v1/notifications/test`).
    let minter: JWSMinter

    init(_ data: ServerAPIData, minter: JWSMinter) throws(ForgeError) {
        bundleID = data.bundleID
        appAppleID = data.appAppleID
        self.minter = minter
        var transactions: [Transaction] = []
        for item in data.transactions {
            let signed = try minter.mint(.transaction(item.transaction))
            var renewal: String?
            if item.transaction.type == "Auto-Renewable Subscription" {
                renewal = try minter.mint(.renewalInfo(item.renewalInfo ?? item.transaction.renewing()))
            }
            transactions.append(Transaction(description: item, signedTransaction: signed, signedRenewalInfo: renewal))
        }
        self.transactions = transactions.sorted {
            ($0.description.transaction.purchaseDate ?? 0, $0.description.transaction.transactionId ?? "")
                < ($1.description.transaction.purchaseDate ?? 0, $1.description.transaction.transactionId ?? "")
        }
        var notifications: [Notification] = []
        for notification in data.notifications {
            notifications.append(
                Notification(description: notification, signedPayload: try minter.mint(.notification(notification))))
        }
        self.notifications = notifications.sorted {
            ($0.description.signedDate ?? 0) < ($1.description.signedDate ?? 0)
        }
    }

    /// The customer `transactionID` belongs to (any of its transactions' ids), oldest first; empty when unknown.
    func customer(of transactionID: String) -> [Transaction] {
        guard let found = transactions.first(where: { $0.description.transaction.transactionId == transactionID })
        else { return [] }
        let key = found.description.customerKey
        return transactions.filter { $0.description.customerKey == key }
    }
}
