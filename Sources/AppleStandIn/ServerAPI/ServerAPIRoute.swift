/// One App Store Server API endpoint the stand-in serves, with the id its path carries
/// (`docs/appstore-2026.md` §8.1).
enum ServerAPIRoute: Sendable, Hashable {
    /// GET `/inApps/v1/transactions/{transactionId}`.
    case transactionInfo(String)
    /// GET `/inApps/v2/history/{transactionId}`.
    case transactionHistory(String)
    /// GET `/inApps/v1/subscriptions/{transactionId}`.
    case subscriptionStatuses(String)
    /// POST `/inApps/v1/notifications/history`.
    case notificationHistory
    /// GET `/inApps/v2/refund/lookup/{transactionId}`.
    case refundHistory(String)
    /// GET `/inApps/v1/lookup/{orderId}`.
    case orderLookup(String)
    /// POST `/inApps/v1/notifications/test`.
    case requestTestNotification
    /// GET `/inApps/v1/notifications/test/{testNotificationToken}`.
    case testNotificationStatus(String)
    /// PUT `/inApps/v2/transactions/consumption/{transactionId}`.
    case consumption(String)
}
