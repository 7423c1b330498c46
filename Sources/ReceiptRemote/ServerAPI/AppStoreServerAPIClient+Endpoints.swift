@_spi(Fuzzing) import ReceiptModel
public import ReceiptVerification

/// The endpoints: each call names the app (`bundleID`, one of the operator's) and, when signed data states it, the
/// environment; `nil` asks Production, then Sandbox.
extension AppStoreServerAPIClient {
    /// Get Transaction Info: `GET /inApps/v1/transactions/{transactionId}`.
    public func transactionInfo(_ transactionID: String, bundleID: String, environment: ReceiptEnvironment? = nil)
        async throws(RemoteError) -> SignedItems
    {
        let id = try AppStoreAPIRequest.pathSegment(transactionID, "transaction id")
        let request = AppStoreAPIRequest(name: "transaction_info", method: .get, path: "/inApps/v1/transactions/\(id)")
        let (response, answered) = try await send(request, bundleID: bundleID, environment: environment)
        guard let text = response.object?["signedTransactionInfo"]?.stringValue else {
            throw RemoteError(.malformedResponse, "Get Transaction Info answered without signedTransactionInfo")
        }
        let item = verifyItem(text, kind: .transaction, index: 0, bundleID: bundleID, environment: answered)
        return SignedItems(environment: answered, items: [item], pages: 1)
    }

    /// Get Transaction History (v2): `GET /inApps/v2/history/{transactionId}`, walked to the end.
    /// - Parameter transactionID: any transaction id of the customer.
    public func transactionHistory(
        _ transactionID: String, bundleID: String, environment: ReceiptEnvironment? = nil,
        filter: TransactionHistoryFilter = TransactionHistoryFilter()
    ) async throws(RemoteError) -> SignedItems {
        var items: [SignedItem] = []
        let walked = try await transactionHistory(
            transactionID, bundleID: bundleID, environment: environment, filter: filter
        ) { (page) throws(RemoteError) in items += page }
        return SignedItems(environment: walked.environment, items: items, pages: walked.pages)
    }

    /// Get Transaction History (v2), page by page: each page's items, verified, are handed to `page` before the next
    /// page is asked for, so a long history is held one page at a time.
    /// - Returns: the environment that answered and the pages walked.
    public func transactionHistory(
        _ transactionID: String, bundleID: String, environment: ReceiptEnvironment? = nil,
        filter: TransactionHistoryFilter = TransactionHistoryFilter(),
        page: ([SignedItem]) async throws(RemoteError) -> Void
    ) async throws(RemoteError) -> (environment: ReceiptEnvironment, pages: Int) {
        let id = try AppStoreAPIRequest.pathSegment(transactionID, "transaction id")
        return try await signedTransactionsWalk(
            name: "transaction_history", path: "/inApps/v2/history/\(id)", query: filter.query, bundleID: bundleID,
            environment: environment, page: page)
    }

    /// Get Refund History (v2): `GET /inApps/v2/refund/lookup/{transactionId}`, walked to the end.
    public func refundHistory(_ transactionID: String, bundleID: String, environment: ReceiptEnvironment? = nil)
        async throws(RemoteError) -> SignedItems
    {
        let id = try AppStoreAPIRequest.pathSegment(transactionID, "transaction id")
        var items: [SignedItem] = []
        let walked = try await signedTransactionsWalk(
            name: "refund_history", path: "/inApps/v2/refund/lookup/\(id)", query: [], bundleID: bundleID,
            environment: environment
        ) { (page) throws(RemoteError) in items += page }
        return SignedItems(environment: walked.environment, items: items, pages: walked.pages)
    }

    /// Look Up Order ID: `GET /inApps/v1/lookup/{orderId}`. Apple's `status` 1 (an invalid order id) is an
    /// answer without items.
    /// - Returns: Apple's `status` and the order's transactions.
    public func lookUpOrder(_ orderID: String, bundleID: String, environment: ReceiptEnvironment? = nil)
        async throws(RemoteError) -> (status: Int, transactions: SignedItems)
    {
        let id = try AppStoreAPIRequest.pathSegment(orderID, "order id")
        let request = AppStoreAPIRequest(name: "order_lookup", method: .get, path: "/inApps/v1/lookup/\(id)")
        let (response, answered) = try await send(request, bundleID: bundleID, environment: environment)
        guard let object = response.object, let status = object["status"]?.integerValue, (0...1).contains(status) else {
            throw RemoteError(.malformedResponse, "Look Up Order ID answered without a status of 0 or 1")
        }
        let items = try Self.signedStrings(object, "signedTransactions").enumerated().map { index, text in
            verifyItem(text, kind: .transaction, index: index, bundleID: bundleID, environment: answered)
        }
        return (Int(status), SignedItems(environment: answered, items: items, pages: 1))
    }

    /// Get All Subscription Statuses: `GET /inApps/v1/subscriptions/{transactionId}`.
    /// - Parameter statuses: only subscriptions in these statuses (1-5); empty for all.
    public func subscriptionStatuses(
        _ transactionID: String, bundleID: String, environment: ReceiptEnvironment? = nil, statuses: [Int] = []
    ) async throws(RemoteError) -> (environment: ReceiptEnvironment, subscriptions: [SignedSubscriptionStatus]) {
        let id = try AppStoreAPIRequest.pathSegment(transactionID, "transaction id")
        let request = AppStoreAPIRequest(
            name: "subscription_statuses", method: .get, path: "/inApps/v1/subscriptions/\(id)",
            query: statuses.map { ("status", "\($0)") })
        let (response, answered) = try await send(request, bundleID: bundleID, environment: environment)
        guard let object = response.object else {
            throw RemoteError(.malformedResponse, "Get All Subscription Statuses answered without a body")
        }
        try checkEnvelope(object, bundleID: bundleID, environment: answered)
        var subscriptions: [SignedSubscriptionStatus] = []
        for group in object["data"]?.arrayValue ?? [] {
            guard let group = group.objectValue else {
                throw RemoteError(.malformedResponse, "data holds something other than an object")
            }
            for last in group["lastTransactions"]?.arrayValue ?? [] {
                guard let last = last.objectValue, let transaction = last["signedTransactionInfo"]?.stringValue else {
                    throw RemoteError(.malformedResponse, "a lastTransactions entry has no signedTransactionInfo")
                }
                let index = subscriptions.count
                subscriptions.append(
                    SignedSubscriptionStatus(
                        groupIdentifier: group.text("subscriptionGroupIdentifier"),
                        originalTransactionID: last.text("originalTransactionId"),
                        status: last["status"]?.integerValue.flatMap { Int(exactly: $0) },
                        transaction: verifyItem(
                            transaction, kind: .transaction, index: index, bundleID: bundleID, environment: answered),
                        renewal: last["signedRenewalInfo"]?.stringValue.map {
                            verifyItem($0, kind: .renewalInfo, index: index, bundleID: bundleID, environment: answered)
                        }))
            }
        }
        return (answered, subscriptions)
    }

    /// Get Notification History: `POST /inApps/v1/notifications/history`, walked to the end in one environment
    /// (the history is kept per environment: there is no hop). Each page's notifications are verified as pushed ones
    /// are and handed to `page` before the next page is asked for, so a long backfill holds one page at a time.
    /// - Returns: the pages walked and the notifications seen.
    public func notificationHistory(
        _ query: NotificationHistoryQuery, bundleID: String, environment: ReceiptEnvironment,
        page: ([SignedItem]) async throws(RemoteError) -> Void
    ) async throws(RemoteError) -> (pages: Int, notifications: Int) {
        if let id = query.transactionID { _ = try AppStoreAPIRequest.pathSegment(id, "transaction id") }
        let body = query.body
        var seen = 0
        let (_, pages) = try await walk(
            bundleID: bundleID, environment: environment, cursorMember: "paginationToken",
            request: { cursor in
                AppStoreAPIRequest(
                    name: "notification_history", method: .post, path: "/inApps/v1/notifications/history",
                    query: cursor.map { [("paginationToken", $0)] } ?? [], body: body)
            },
            page: { (object, answered) throws(RemoteError) in
                var items: [SignedItem] = []
                for entry in object["notificationHistory"]?.arrayValue ?? [] {
                    guard let text = entry.objectValue?["signedPayload"]?.stringValue else {
                        throw RemoteError(.malformedResponse, "a notificationHistory entry has no signedPayload")
                    }
                    items.append(
                        verifyItem(text, kind: .notification, index: seen, bundleID: bundleID, environment: answered))
                    seen += 1
                }
                try await page(items)
            })
        return (pages, seen)
    }

    /// Request a Test Notification: `POST /inApps/v1/notifications/test`.
    /// - Returns: Apple's `testNotificationToken` and the environment asked.
    public func requestTestNotification(bundleID: String, environment: ReceiptEnvironment)
        async throws(RemoteError) -> String
    {
        let request = AppStoreAPIRequest(
            name: "test_notification", method: .post, path: "/inApps/v1/notifications/test")
        let (response, _) = try await send(request, bundleID: bundleID, environment: environment)
        guard let token = response.object?["testNotificationToken"]?.stringValue, !token.isEmpty else {
            throw RemoteError(.malformedResponse, "Request a Test Notification answered without testNotificationToken")
        }
        return token
    }

    /// Send Consumption Information (v2): `PUT /inApps/v2/transactions/consumption/{transactionId}` with the
    /// caller's JSON object (`customerConsented`, `refundPreference`, …), sent as given.
    /// - Returns: the environment that accepted it.
    /// - Throws: `remote.invalid_argument` when `body` is not one JSON object; what ``send(_:bundleID:environment:)``
    ///   throws.
    @discardableResult
    public func sendConsumptionInformation(
        _ transactionID: String, body: [UInt8], bundleID: String, environment: ReceiptEnvironment? = nil
    ) async throws(RemoteError) -> ReceiptEnvironment {
        let id = try AppStoreAPIRequest.pathSegment(transactionID, "transaction id")
        var reader = JSONReader(body, maximumDepth: AppStoreAPIResponse.maximumDepth)
        guard case .object? = try? reader.document() else {
            throw RemoteError(.invalidArgument, "the consumption information is not one JSON object")
        }
        let request = AppStoreAPIRequest(
            name: "consumption", method: .put, path: "/inApps/v2/transactions/consumption/\(id)", body: body)
        return try await send(request, bundleID: bundleID, environment: environment).1
    }

    /// A walk of pages of `signedTransactions` (histories), each verified as a transaction and handed to `page`.
    private func signedTransactionsWalk(
        name: String, path: String, query: [(name: String, value: String)], bundleID: String,
        environment: ReceiptEnvironment?, page: ([SignedItem]) async throws(RemoteError) -> Void
    ) async throws(RemoteError) -> (environment: ReceiptEnvironment, pages: Int) {
        var seen = 0
        return try await walk(
            bundleID: bundleID, environment: environment, cursorMember: "revision",
            request: { cursor in
                AppStoreAPIRequest(
                    name: name, method: .get, path: path, query: query + (cursor.map { [("revision", $0)] } ?? []))
            },
            page: { (object, answered) throws(RemoteError) in
                var items: [SignedItem] = []
                for text in try Self.signedStrings(object, "signedTransactions") {
                    items.append(
                        verifyItem(text, kind: .transaction, index: seen, bundleID: bundleID, environment: answered))
                    seen += 1
                }
                try await page(items)
            })
    }
}
