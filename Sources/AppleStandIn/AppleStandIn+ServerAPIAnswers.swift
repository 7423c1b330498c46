import Hummingbird
import ReceiptForge
@_spi(Fuzzing) import ReceiptModel
import ReceiptVerification

extension AppleStandIn {
    /// Apple's answer to `exchange` from the environment's data, the item at `forging` of the answer's list
    /// broken (``ServerAPIBehaviour/forgedItem(index:)``).
    func answerAPI(_ exchange: ServerAPIExchange, forging: Int?) -> Response {
        guard let data = exchange.data else { return Self.transactionNotFound }
        switch exchange.route {
        case .transactionInfo(let id):
            guard let found = data.transactions.first(where: { $0.description.transaction.transactionId == id })
            else { return Self.transactionNotFound }
            var writer = JSONWriter()
            writer.beginObject()
            writer.field(
                "signedTransactionInfo", forging == 0 ? Self.forged(found.signedTransaction) : found.signedTransaction)
            writer.endObject()
            return Self.apiJSON(writer.bytes)
        case .transactionHistory(let id):
            return history(exchange, data, id, forging: forging)
        case .subscriptionStatuses(let id):
            return subscriptionStatuses(exchange, data, id, forging: forging)
        case .refundHistory(let id):
            let customer = data.customer(of: id)
            guard !customer.isEmpty else { return Self.transactionNotFound }
            let revoked = customer.filter { $0.description.transaction.revocationDate != nil }
            guard
                let page = ServerAPIPage(
                    revoked, token: exchange.value("revision"), prefix: "f", size: configuration.serverAPIPageSize)
            else { return Self.apiError(status: 400, code: 4_000_005) }
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("signedTransactions")
            Self.writeSigned(page.items.map(\.signedTransaction), forging: forging, to: &writer)
            writer.field("revision", page.nextToken)
            writer.field("hasMore", page.hasMore)
            writer.endObject()
            return Self.apiJSON(writer.bytes)
        case .orderLookup(let orderID):
            let found = data.transactions.filter { $0.description.orderID == orderID }
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("status", found.isEmpty ? 1 : 0)
            writer.key("signedTransactions")
            Self.writeSigned(found.map(\.signedTransaction), forging: forging, to: &writer)
            writer.endObject()
            return Self.apiJSON(writer.bytes)
        case .notificationHistory:
            return notificationHistory(exchange, data, forging: forging)
        case .requestTestNotification:
            return requestTestNotification(exchange, data)
        case .testNotificationStatus(let token):
            return testNotificationStatus(token)
        case .consumption(let id):
            return consumption(exchange, data, id)
        }
    }

    /// Get Transaction History v2: the customer's transactions, filtered, sorted, paged by `revision`.
    private func history(
        _ exchange: ServerAPIExchange, _ data: MintedServerAPIData, _ id: String, forging: Int?
    ) -> Response {
        let customer = data.customer(of: id)
        guard !customer.isEmpty else { return Self.transactionNotFound }
        guard let filter = HistoryFilter(exchange) else {
            // 4000016 when the end date is the bad one, 4000015 otherwise (a start date or `revoked`).
            let badEnd = exchange.value("endDate").map { Int64($0) == nil } ?? false
            return Self.apiError(status: 400, code: badEnd ? 4_000_016 : 4_000_015)
        }
        var matching = customer.filter { filter.admits($0.description.transaction) }
        if exchange.value("sort") == "DESCENDING" { matching.reverse() }
        guard
            let page = ServerAPIPage(
                matching, token: exchange.value("revision"), prefix: "r", size: configuration.serverAPIPageSize)
        else { return Self.apiError(status: 400, code: 4_000_005) }
        var writer = JSONWriter(capacity: page.items.count * 4096 + 256)
        writer.beginObject()
        writer.field("revision", page.nextToken)
        writer.field("hasMore", page.hasMore)
        Self.writeEnvelope(data, exchange.environment, to: &writer)
        writer.key("signedTransactions")
        Self.writeSigned(page.items.map(\.signedTransaction), forging: forging, to: &writer)
        writer.endObject()
        return Self.apiJSON(writer.bytes)
    }

    /// Get All Subscription Statuses: per subscription group, the latest transaction of each original
    /// transaction of the customer, with its renewal info and status (1 active, 2 expired, 5 revoked at the API
    /// clock's now), kept when `status` (repeatable) is absent or names it.
    private func subscriptionStatuses(
        _ exchange: ServerAPIExchange, _ data: MintedServerAPIData, _ id: String, forging: Int?
    ) -> Response {
        let customer = data.customer(of: id)
        guard !customer.isEmpty else { return Self.transactionNotFound }
        let wanted = Set(exchange.values("status").compactMap { Int64($0) })
        let now = configuration.serverAPIClock()
        var groups: [String] = []
        var latest: [String: [String: MintedServerAPIData.Transaction]] = [:]
        for item in customer where item.signedRenewalInfo != nil {
            let transaction = item.description.transaction
            let group = transaction.subscriptionGroupIdentifier ?? ""
            if latest[group] == nil { groups.append(group) }
            // Oldest first, so the last one seen of each original transaction is its latest.
            latest[group, default: [:]][item.description.customerKey] = item
        }
        var writer = JSONWriter(capacity: customer.count * 4096 + 256)
        writer.beginObject()
        Self.writeEnvelope(data, exchange.environment, to: &writer)
        writer.key("data")
        writer.beginArray()
        var index = 0
        for group in groups {
            let items = (latest[group] ?? [:]).sorted { $0.key < $1.key }.map(\.value).compactMap {
                item -> (MintedServerAPIData.Transaction, Int64)? in
                let status = Self.subscriptionStatus(item.description.transaction, now: now)
                return wanted.isEmpty || wanted.contains(status) ? (item, status) : nil
            }
            guard !items.isEmpty else { continue }
            writer.beginObject()
            writer.field("subscriptionGroupIdentifier", group)
            writer.key("lastTransactions")
            writer.beginArray()
            for (item, status) in items {
                writer.beginObject()
                writer.field("originalTransactionId", item.description.customerKey)
                writer.field("status", status)
                writer.field(
                    "signedTransactionInfo",
                    index == forging ? Self.forged(item.signedTransaction) : item.signedTransaction)
                writer.field("signedRenewalInfo", item.signedRenewalInfo ?? "")
                writer.endObject()
                index += 1
            }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return Self.apiJSON(writer.bytes)
    }

    private static func subscriptionStatus(_ transaction: JWSTransactionDescription, now: Int64) -> Int64 {
        if transaction.revocationDate != nil { return 5 }
        if let expires = transaction.expiresDate, expires > now { return 1 }
        return 2
    }
}
