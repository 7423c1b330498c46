internal import HTTPTypes
public import Hummingbird
import Logging
public import ReceiptLedger
import ReceiptModel
import ReceiptRemote
public import ReceiptVerification

/// The server's routes: Apple's verifyReceipt contract, the project's `/v1/verify`, `/health` and
/// `/metrics`, for a Hummingbird router of any request context.
///
/// Each receipt route reads the request, holds it to the operator's configuration, verifies, and answers
/// (`ReceiptRoutes+VerifyReceipt.swift`, `ReceiptRoutes+V1Verify.swift`). A refusal is thrown as an
/// `HTTPResponseError` (``ServerError`` on `/v1/verify`, ``VerifyReceiptRefusal`` on the verifyReceipt
/// routes) that Hummingbird writes out. ``RouteObserverMiddleware`` wraps the receipt routes: one access-log
/// line and the request metrics per request. Handlers log through `context.logger`, which carries
/// Hummingbird's request id (`hb.request.id`).
public struct ReceiptRoutes: Sendable {
    public let configuration: ReceiptServerConfiguration
    public let decider: any ReceiptDecider
    public let metrics: ServerMetrics
    /// The ledger each verification is recorded in; `nil` runs without one.
    public let ledger: Ledger?
    package let limiter: InFlightLimiter
    let bodyReader: BodyReader
    /// Who may read or bind ledger state through `/v1`.
    let access: APIAccess

    /// Response header naming who decided (`local` or `remote`); the body stays Apple's.
    // swift-format-ignore: NeverForceUnwrap
    static let decidedByHeader = HTTPField.Name("X-Receipt-Decided-By")!  // a constant, valid token
    /// Response header with the deciding reason code, when the receipt was not valid.
    // swift-format-ignore: NeverForceUnwrap
    static let reasonHeader = HTTPField.Name("X-Receipt-Reason")!  // a constant, valid token

    public init(
        configuration: ReceiptServerConfiguration, decider: any ReceiptDecider,
        metrics: ServerMetrics = ServerMetrics(),
        ledger: Ledger? = nil
    ) {
        self.configuration = configuration
        self.decider = decider
        self.metrics = metrics
        self.ledger = ledger
        self.limiter = InFlightLimiter(limit: configuration.maximumInFlight)
        self.bodyReader = BodyReader(maximumSize: configuration.maximumBodySize, timeout: configuration.bodyTimeout)
        self.access = APIAccess(configuration: configuration)
    }

    /// A router with every route.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        add(to: router)
        return router
    }

    /// Adds every route to `router` (an application's router, or a group of it).
    public func add<Context: RequestContext>(to router: some RouterMethods<Context>) {
        let receiptRoutes = router.group().add(middleware: RouteObserverMiddleware<Context>(metrics: metrics))
        for endpoint in [ReceiptEnvironment.production, .sandbox] {
            receiptRoutes.post(RouterPath(Self.path(endpoint))) { request, context in
                try await self.verifyReceipt(request, context: context, endpoint: endpoint)
            }
        }
        receiptRoutes.post("/v1/verify") { request, context in
            try await self.verify(request, context: context)
        }
        receiptRoutes.post("/v1/notifications/appstore") { request, context in
            try await self.notification(request, context: context)
        }
        receiptRoutes.get("/v1/entitlements") { request, context in
            try await self.entitlements(request, context: context)
        }
        receiptRoutes.get("/v1/transactions/:id") { request, context in
            try await self.transaction(request, context: context)
        }
        router.get("/health") { _, _ in
            Self.response(.ok, contentType: "application/json", body: Array(#"{"status":"ok"}"#.utf8))
        }
        router.get("/metrics") { _, _ in
            let text = self.metrics.exposition(cache: self.decider.cacheStatistics, inFlight: self.limiter.current)
            return Self.response(.ok, contentType: "text/plain; version=0.0.4; charset=utf-8", body: text)
        }
    }

    /// The route of a verifyReceipt endpoint: `/verifyReceipt` stands in for
    /// `https://buy.itunes.apple.com/verifyReceipt`, `/sandbox/verifyReceipt` for the sandbox one.
    public static func path(_ endpoint: ReceiptEnvironment) -> String {
        endpoint == .production ? "/verifyReceipt" : "/sandbox/verifyReceipt"
    }

    // MARK: - Steps both receipt APIs take

    /// Whether `password` may be used: with a shared secret configured, only that secret (compared in
    /// constant time); without one, any.
    func sharedSecretAccepts(_ password: String?) -> Bool {
        guard let secret = configuration.sharedSecret, let password else { return true }
        return Self.constantTimeEquals(Array(secret.utf8), Array(password.utf8))
    }

    /// Verifies a receipt in one of the in-flight slots; refuses at once when none is free.
    /// - Throws: ``ServerError`` ``ServerError/Code/overloaded``.
    func decide(_ receiptData: [UInt8], _ request: FallbackRequest) async throws(ServerError) -> AttributedVerdict {
        guard limiter.tryAcquire() else {
            throw ServerError(.overloaded, "more than \(limiter.limit) requests in flight")
        }
        defer { limiter.release() }
        return await decider.verify(receiptData, request: request)
    }

    /// Counts and logs what a request was answered once its receipt was looked at (or, for a wrong
    /// password on the verifyReceipt routes, instead): the one place both APIs record an answer.
    func noteAnswer(status: Int, result: AttributedVerdict?, request: Request, context: some RequestContext) {
        metrics.recordAnswer(route: Self.route(of: request, context: context), status: status, result: result)
        var metadata: Logger.Metadata = ["status": "\(status)"]
        if let result {
            metadata["outcome"] = "\(result.verdict.outcome)"
            metadata["decided_by"] = "\(result.decidedBy)"
            metadata["reason"] = "\(result.verdict.reason?.code.description ?? "-")"
        }
        context.logger.debug("answered", metadata: metadata)
    }

    /// The route a request came in on, as the metrics and logs name it: the router's path pattern (never
    /// the request's own URI, whose query a client fills).
    static func route(of request: Request, context: some RequestContext) -> String {
        context.endpointPath ?? request.uri.path
    }

    // MARK: - Helpers

    static func response(_ status: HTTPResponse.Status, contentType: String, body: [UInt8]) -> Response {
        Response(
            status: status, headers: [.contentType: contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A JSON response; a 503 also says when to try again (`Retry-After: 1`).
    static func jsonResponse(_ status: HTTPResponse.Status, body: [UInt8]) -> Response {
        var response = response(status, contentType: "application/json", body: body)
        if status.code == 503 { response.headers[.retryAfter] = "1" }
        return response
    }

    /// `application/json; charset=utf-8` → `application/json`.
    static func mediaType(_ value: String) -> String {
        let type = value.split(separator: ";", maxSplits: 1).first ?? ""
        return type.trimmingSpaces().lowercased()
    }

    /// Compares secrets without an early exit, so timing does not reveal a matching prefix.
    static func constantTimeEquals(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
