package import ReceiptForge
package import ReceiptModel
package import ReceiptVerification

/// What the stand-in's App Store Server API answers from in one environment: the app, its transactions and the
/// V2 notifications Apple sent about them.
///
/// A customer is every transaction sharing an original transaction id: any id of one finds them all, as Apple's
/// Get Transaction History and Get All Subscription Statuses do.
package struct ServerAPIData: Sendable, Hashable {
    /// The app's bundle id: the envelope's `bundleId`, and the `bid` a token must carry.
    package var bundleID: String
    /// The envelope's `appAppleId`; Apple writes it in Production only, and so does the stand-in.
    package var appAppleID: Int64?
    /// Every transaction, any order.
    package var transactions: [ServerAPITransaction]
    /// Every notification Apple sent, any order; each needs its `signedDate` (Get Notification History filters
    /// and sorts on it) and a distinct `notificationUUID`.
    package var notifications: [NotificationV2Description]

    package init(
        bundleID: String, appAppleID: Int64? = nil, transactions: [ServerAPITransaction] = [],
        notifications: [NotificationV2Description] = []
    ) {
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.transactions = transactions
        self.notifications = notifications
    }

    /// `count` monthly renewals of one auto-renewable subscription of one customer: transaction ids
    /// `originalTransactionID`, `originalTransactionID + 1`, …, purchased 30 days apart from `start`, each expiring
    /// when the next begins, order ids `ORDER-<transaction id>`. The last one carries a renewal info that renews.
    /// - Parameters:
    ///   - originalTransactionID: a decimal number, as Apple's ids are; the first transaction's id.
    ///   - start: the first purchase.
    package static func customer(
        originalTransactionID: Int64, count: Int, productID: String, bundleID: String,
        environment: ReceiptEnvironment, start: ReceiptDate, subscriptionGroupIdentifier: String = "21000001"
    ) -> [ServerAPITransaction] {
        let period: Int64 = 30 * 24 * 3600 * 1000
        let first = start.millisecondsSince1970
        var made: [ServerAPITransaction] = []
        for index in 0..<Int64(max(0, count)) {
            let (offset, overflow) = index.multipliedReportingOverflow(by: period)
            let (purchase, late) = first.addingReportingOverflow(offset)
            let (expires, later) = purchase.addingReportingOverflow(period)
            let (id, big) = originalTransactionID.addingReportingOverflow(index)
            guard !overflow, !late, !later, !big else { break }
            var transaction = JWSTransactionDescription()
            transaction.transactionId = String(id)
            transaction.originalTransactionId = String(originalTransactionID)
            transaction.webOrderLineItemId = String(id) + "0"
            transaction.bundleId = bundleID
            transaction.productId = productID
            transaction.subscriptionGroupIdentifier = subscriptionGroupIdentifier
            transaction.purchaseDate = purchase
            transaction.originalPurchaseDate = first
            transaction.expiresDate = expires
            transaction.quantity = 1
            transaction.type = "Auto-Renewable Subscription"
            transaction.inAppOwnershipType = "PURCHASED"
            transaction.signedDate = purchase
            transaction.environment = environment.rawValue
            transaction.storefront = "USA"
            transaction.storefrontId = "143441"
            transaction.transactionReason = index == 0 ? "PURCHASE" : "RENEWAL"
            transaction.price = 4990
            transaction.currency = "USD"
            made.append(ServerAPITransaction(transaction: transaction, orderID: "ORDER-\(id)"))
        }
        if let last = made.indices.last {
            made[last].renewalInfo = made[last].transaction.renewing()
        }
        return made
    }

    /// One notification per transaction, oldest first: `SUBSCRIBED` for a purchase, `DID_RENEW` for a renewal,
    /// signed when the transaction was, UUIDs `00000000-0000-4000-8000-<12-digit index>` in Production and
    /// `00000000-0000-4000-8001-<12-digit index>` in Sandbox: Apple's are unique across environments, and a ledger
    /// holding both environments' notifications keys them by UUID alone.
    package static func notifications(
        about transactions: [ServerAPITransaction], bundleID: String, environment: ReceiptEnvironment,
        appAppleID: Int64? = nil
    ) -> [NotificationV2Description] {
        var made: [NotificationV2Description] = []
        for (index, item) in transactions.enumerated() {
            var data = NotificationDataDescription()
            data.appAppleId = environment == .production ? appAppleID : nil
            data.bundleId = bundleID
            data.bundleVersion = "1"
            data.environment = environment.rawValue
            data.transaction = item.transaction
            data.renewalInfo = item.renewalInfo ?? item.transaction.renewing()
            data.status = 1
            var notification = NotificationV2Description()
            notification.notificationType =
                item.transaction.transactionReason == "PURCHASE" ? "SUBSCRIBED" : "DID_RENEW"
            notification.subtype = item.transaction.transactionReason == "PURCHASE" ? "INITIAL_BUY" : nil
            let digits = String(index)
            notification.notificationUUID =
                "00000000-0000-4000-\(environment == .production ? "8000" : "8001")-"
                + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
            notification.version = "2.0"
            notification.signedDate = item.transaction.signedDate
            notification.data = data
            made.append(notification)
        }
        return made
    }
}
