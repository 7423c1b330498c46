import Hummingbird
import ReceiptForge
@_spi(Fuzzing) import ReceiptModel
import ReceiptVerification
import Synchronization

extension AppleStandIn {
    /// Get Notification History: the notifications with `startDate` ≤ `signedDate` < `endDate`, oldest first,
    /// filtered by `notificationType`, `notificationSubtype`, `transactionId` (any id of the customer) and
    /// `onlyFailures` (every send succeeded here, so `true` finds none), paged by `paginationToken`.
    func notificationHistory(_ exchange: ServerAPIExchange, _ data: MintedServerAPIData, forging: Int?) -> Response {
        var reader = JSONReader(exchange.body, maximumDepth: 8)
        guard let request = (try? reader.document())?.objectValue else {
            return Self.apiError(status: 400, code: 4_000_023)
        }
        guard let start = request["startDate"]?.integerValue else { return Self.apiError(status: 400, code: 4_000_015) }
        guard let end = request["endDate"]?.integerValue, end > start else {
            return Self.apiError(status: 400, code: 4_000_016)
        }
        let type = request.text("notificationType")
        let subtype = request.text("notificationSubtype")
        let customer = request.text("transactionId").map { Set(data.customer(of: $0).map(\.description.customerKey)) }
        let onlyFailures = request["onlyFailures"]?.boolValue == true
        let matching = data.notifications.filter { item in
            let notification = item.description
            guard let signed = notification.signedDate, start <= signed, signed < end, !onlyFailures else {
                return false
            }
            if let type, notification.notificationType != type { return false }
            if let subtype, notification.subtype != subtype { return false }
            if let customer {
                let transaction = notification.data?.transaction
                let key = transaction?.originalTransactionId ?? transaction?.transactionId ?? ""
                if !customer.contains(key) { return false }
            }
            return true
        }
        guard
            let page = ServerAPIPage(
                matching, token: exchange.value("paginationToken"), prefix: "n", size: configuration.serverAPIPageSize)
        else { return Self.apiError(status: 400, code: 4_000_009) }
        var writer = JSONWriter(capacity: page.items.count * 12_000 + 256)
        writer.beginObject()
        writer.key("notificationHistory")
        writer.beginArray()
        for (index, item) in page.items.enumerated() {
            writer.beginObject()
            writer.field("signedPayload", index == forging ? Self.forged(item.signedPayload) : item.signedPayload)
            Self.writeSendAttempts(at: item.description.signedDate ?? 0, to: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.field("hasMore", page.hasMore)
        if page.hasMore { writer.field("paginationToken", page.nextToken) }
        writer.endObject()
        return Self.apiJSON(writer.bytes)
    }

    /// Request a Test Notification: mints a `TEST` notification signed now and answers its token.
    func requestTestNotification(_ exchange: ServerAPIExchange, _ data: MintedServerAPIData) -> Response {
        let now = configuration.serverAPIClock()
        let number = serverAPI.withLock { api in
            api.testNotificationCount += 1
            return api.testNotificationCount
        }
        let digits = String(number)
        var notification = NotificationV2Description()
        notification.notificationType = "TEST"
        notification.notificationUUID =
            "00000000-0000-4000-9000-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        notification.version = "2.0"
        notification.signedDate = now
        var appData = NotificationDataDescription()
        appData.bundleId = data.bundleID
        appData.appAppleId = exchange.environment == .production ? data.appAppleID : nil
        appData.environment = exchange.environment.rawValue
        notification.data = appData
        guard let signed = try? data.minter.mint(.notification(notification)) else {
            return Self.apiError(status: 500, code: 5_000_000)
        }
        let token = (notification.notificationUUID ?? digits) + "_" + String(now)
        serverAPI.withLock { api in
            api.testNotifications[token] = ServerAPIState.TestNotification(signedPayload: signed, sentMilliseconds: now)
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("testNotificationToken", token)
        writer.endObject()
        return Self.apiJSON(writer.bytes)
    }

    /// Get Test Notification Status: the payload sent and one successful attempt; 404 4040008 for another token.
    func testNotificationStatus(_ token: String) -> Response {
        guard let sent = serverAPI.withLock({ $0.testNotifications[token] }) else {
            return Self.apiError(status: 404, code: 4_040_008)
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("signedPayload", sent.signedPayload)
        Self.writeSendAttempts(at: sent.sentMilliseconds, to: &writer)
        writer.endObject()
        return Self.apiJSON(writer.bytes)
    }

    /// Send Consumption Information: 202 with no body for a JSON object about a known transaction (the body is
    /// in the record), 400 4000023 for anything else.
    func consumption(_ exchange: ServerAPIExchange, _ data: MintedServerAPIData, _ id: String) -> Response {
        var reader = JSONReader(exchange.body, maximumDepth: 8)
        guard (try? reader.document())?.objectValue != nil else { return Self.apiError(status: 400, code: 4_000_023) }
        guard data.transactions.contains(where: { $0.description.transaction.transactionId == id }) else {
            return Self.transactionNotFound
        }
        return Response(status: .accepted)
    }

    /// `"sendAttempts": [{"attemptDate": ms, "sendAttemptResult": "SUCCESS"}]`.
    private static func writeSendAttempts(at milliseconds: Int64, to writer: inout JSONWriter) {
        writer.key("sendAttempts")
        writer.beginArray()
        writer.beginObject()
        writer.field("attemptDate", milliseconds)
        writer.field("sendAttemptResult", "SUCCESS")
        writer.endObject()
        writer.endArray()
    }
}
