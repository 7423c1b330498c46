import Hummingbird
import Logging
import NIOCore
package import ReceiptForge
import ReceiptModel
package import ReceiptVerification
import Synchronization

extension AppleStandIn {
    // MARK: - Data, scripts and record

    /// Serves `data` as `environment`'s App Store Server API, every JWS minted now by `minter` (under the
    /// project's test JWS chain: `JWSMinter(pki: TestPKI(directory: <repo>/certs))`). Replaces what that
    /// environment served before.
    /// - Throws: ``ReceiptForge/ForgeError`` when a certificate or key of the test PKI cannot be read.
    package func serveServerAPI(
        _ data: ServerAPIData, in environment: ReceiptEnvironment, minter: JWSMinter
    ) throws(ForgeError) {
        let minted = try MintedServerAPIData(data, minter: minter)
        serverAPI.withLock { $0.data[environment] = minted }
    }

    /// Appends behaviours to an environment's App Store Server API script; each API request takes the next one.
    package func scriptAPI(_ environment: ReceiptEnvironment, _ behaviours: [ServerAPIBehaviour]) {
        serverAPI.withLock { $0.scripts[environment, default: []] += behaviours }
    }

    /// What an environment's App Store Server API does once its script is used up (``ServerAPIBehaviour/apple``
    /// at first): `.apiError(httpStatus: 404, errorCode: 4040010)` or `.unauthorized` for an app never released
    /// in production.
    package func setAPIDefault(_ environment: ReceiptEnvironment, _ behaviour: ServerAPIBehaviour) {
        serverAPI.withLock { $0.defaults[environment] = behaviour }
    }

    /// Every App Store Server API request received so far, in arrival order (optionally one environment's).
    package func apiRequests(_ environment: ReceiptEnvironment? = nil) -> [RecordedAPIRequest] {
        serverAPI.withLock { api in api.recorded.filter { environment == nil || $0.environment == environment } }
    }

    /// The requests that arrived while their app was rate-limited (before a 429's `Retry-After`), in either
    /// environment. Each got 429 again, with the same `Retry-After`, and took no scripted step.
    package func rateLimitViolations() -> [RateLimitViolation] {
        serverAPI.withLock { $0.violations }
    }

    // MARK: - Routes

    /// Apple's App Store Server API paths on `router`, as `environment`.
    func addServerAPIRoutes(to router: Router<BasicRequestContext>, environment: ReceiptEnvironment) {
        @Sendable func id(_ context: BasicRequestContext, _ name: String) -> String {
            context.parameters.get(name) ?? ""
        }
        router.get("/inApps/v1/transactions/:id") { request, context in
            try await self.handleAPI(request, .transactionInfo(id(context, "id")), environment)
        }
        router.get("/inApps/v2/history/:id") { request, context in
            try await self.handleAPI(request, .transactionHistory(id(context, "id")), environment)
        }
        router.get("/inApps/v1/subscriptions/:id") { request, context in
            try await self.handleAPI(request, .subscriptionStatuses(id(context, "id")), environment)
        }
        router.post("/inApps/v1/notifications/history") { request, _ in
            try await self.handleAPI(request, .notificationHistory, environment)
        }
        router.get("/inApps/v2/refund/lookup/:id") { request, context in
            try await self.handleAPI(request, .refundHistory(id(context, "id")), environment)
        }
        router.get("/inApps/v1/lookup/:id") { request, context in
            try await self.handleAPI(request, .orderLookup(id(context, "id")), environment)
        }
        router.post("/inApps/v1/notifications/test") { request, _ in
            try await self.handleAPI(request, .requestTestNotification, environment)
        }
        router.get("/inApps/v1/notifications/test/:id") { request, context in
            try await self.handleAPI(request, .testNotificationStatus(id(context, "id")), environment)
        }
        router.put("/inApps/v2/transactions/consumption/:id") { request, context in
            try await self.handleAPI(request, .consumption(id(context, "id")), environment)
        }
    }

    /// Reads, checks the token, enforces a running rate limit, records, then takes the next behaviour.
    private func handleAPI(
        _ request: Request, _ route: ServerAPIRoute, _ environment: ReceiptEnvironment
    ) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: configuration.maximumRequestSize)
        let body = Array(buffer.readableBytesView)
        let arrival = configuration.serverAPIClock()
        let data = serverAPI.withLock { $0.data[environment] }
        let header = request.headers[.authorization]
        let check =
            configuration.serverAPIAuthorization?.check(header, bundleID: data?.bundleID, nowMilliseconds: arrival)
            ?? ServerAPIAuthorization.decodeOnly(header)
        let limitKey = check.claims?.text("bid") ?? data?.bundleID ?? ""
        let path = request.uri.path
        let query = request.uri.query ?? ""
        let behaviour = serverAPI.withLock { api -> ServerAPIBehaviour in
            var behaviour: ServerAPIBehaviour
            if check.refuses {
                behaviour = .unauthorized
            } else if let until = api.limitedUntil[limitKey], arrival < until {
                api.violations.append(
                    RateLimitViolation(
                        bundleID: limitKey, environment: environment, path: path, arrivalMilliseconds: arrival,
                        limitedUntilMilliseconds: until))
                behaviour = .rateLimitedUntil(unixMilliseconds: until)
            } else {
                behaviour = api.nextBehaviour(environment)
            }
            api.recorded.append(
                RecordedAPIRequest(
                    environment: environment, method: request.method.rawValue, path: path, query: query, body: body,
                    authorization: check, arrivalMilliseconds: arrival, behaviour: behaviour))
            return behaviour
        }
        logger.debug(
            "App Store Server API request",
            metadata: ["environment": "\(environment)", "path": "\(path)", "verified": "\(check.isVerified as Any)"])
        let exchange = ServerAPIExchange(
            route: route, environment: environment, data: data,
            query: request.uri.queryParameters.map {
                (String($0.key), String($0.value))
            }, body: body, limitKey: limitKey)
        return try await respondAPI(behaviour, to: exchange)
    }

    private func respondAPI(_ behaviour: ServerAPIBehaviour, to exchange: ServerAPIExchange) async throws -> Response {
        switch behaviour {
        case .apple:
            return answerAPI(exchange, forging: nil)
        case .forgedItem(let index):
            return answerAPI(exchange, forging: index)
        case .rateLimited(let milliseconds):
            let (until, overflow) = configuration.serverAPIClock().addingReportingOverflow(milliseconds)
            return rateLimit(exchange, until: overflow ? Int64.max : until)
        case .rateLimitedUntil(let until):
            return rateLimit(exchange, until: until)
        case .apiError(let status, let code):
            return Self.apiError(status: status, code: code)
        case .unauthorized:
            return Response(status: .unauthorized)
        case .delayed(let duration, let then):
            try await Task.sleep(for: duration)
            return try await respondAPI(then, to: exchange)
        case .dropConnection:
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody { _ in throw StandInError(.droppedOnPurpose, "scripted drop") })
        case .malformed:
            return Self.apiJSON(Array(#"{"signedTransactions": ["#.utf8))
        }
    }

    /// 429 until `until`, and the app held rate-limited until then (the later of two limits wins).
    private func rateLimit(_ exchange: ServerAPIExchange, until: Int64) -> Response {
        serverAPI.withLock { api in
            api.limitedUntil[exchange.limitKey] = max(api.limitedUntil[exchange.limitKey] ?? until, until)
        }
        var response = Self.apiError(status: 429, code: 4_290_000)
        response.headers[.retryAfter] = String(until)
        return response
    }
}
