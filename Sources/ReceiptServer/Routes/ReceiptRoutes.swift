internal import HTTPTypes
public import Hummingbird
import Logging
public import ReceiptIntake
public import ReceiptLedger
import ReceiptModel
public import ReceiptRemote
package import ReceiptVerification

/// The server's routes: Apple's verifyReceipt contract, the project's `/v1` API, `/health` and `/metrics`, for a
/// Hummingbird router of any request context.
///
/// The application lives in ``ReceiptIntake/ReceiptIntake``; each route parses the request, calls the intake and
/// renders its answer. The routes come grouped by resource, one controller each: ``VerifyReceiptController``
/// (Apple's two endpoints), ``VerifyController`` (`/v1/verify`), ``NotificationController``
/// (`/v1/notifications/appstore`), ``LedgerController`` (the ledger's reads), ``SyncController`` (`/v1/sync`). A
/// refusal is thrown as an `HTTPResponseError` (``ServerError``, or ``VerifyReceiptRefusal`` on the verifyReceipt
/// routes) that Hummingbird writes out. ``RouteObserverMiddleware`` wraps the receipt routes: one access-log line and the request metrics
/// per request. Handlers log through `context.logger`, which carries Hummingbird's request id (`hb.request.id`).
public struct ReceiptRoutes: Sendable {
    public let configuration: ReceiptServerConfiguration
    /// Verifies, consults the ledger, asks Apple, records.
    public let intake: ReceiptIntake
    public let metrics: ServerMetrics
    let bodyReader: BodyReader
    /// Who may read or bind ledger state through `/v1`.
    let access: APIAccess
    /// The `in_app` entries of receipts answered lately, copied into the answer when the same receipt comes again.
    package let renderings = RenderedPurchasesCache()

    /// Response header naming who decided (`local` or `remote`); the body stays Apple's.
    // swift-format-ignore: NeverForceUnwrap
    static let decidedByHeader = HTTPField.Name("X-Receipt-Decided-By")!  // a constant, valid token
    /// Response header with the deciding reason code, when the receipt was not valid.
    // swift-format-ignore: NeverForceUnwrap
    static let reasonHeader = HTTPField.Name("X-Receipt-Reason")!  // a constant, valid token
    /// Response header listing, comma-separated, the transaction ids a `/verifyReceipt` answer reports new.
    // swift-format-ignore: NeverForceUnwrap
    static let newTransactionsHeader = HTTPField.Name("X-Receipt-New-Transactions")!  // a constant, valid token

    public init(
        configuration: ReceiptServerConfiguration, decider: any ReceiptDecider,
        metrics: ServerMetrics = ServerMetrics(),
        ledger: Ledger? = nil, serverAPI: AppStoreServerAPIClient? = nil
    ) {
        self.configuration = configuration
        let rules = IntakeRules(
            sharedSecret: configuration.sharedSecret, acceptsAnyEnvironment: configuration.acceptsAnyEnvironment)
        self.intake = ReceiptIntake(
            decider: decider, ledger: ledger, rules: rules, maximumInFlight: configuration.maximumInFlight,
            serverAPI: serverAPI)
        self.metrics = metrics
        self.bodyReader = BodyReader(maximumSize: configuration.maximumBodySize, timeout: configuration.bodyTimeout)
        self.access = APIAccess(configuration: configuration)
    }

    /// The verifier and fallback the intake asks.
    public var decider: any ReceiptDecider { intake.decider }
    /// The ledger each verification is recorded in; `nil` runs without one.
    public var ledger: Ledger? { intake.ledger }

    /// A router with every route.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        add(to: router)
        return router
    }

    /// Adds every route to `router` (an application's router, or a group of it).
    public func add<Context: RequestContext>(to router: some RouterMethods<Context>) {
        let observed = router.group().add(middleware: RouteObserverMiddleware<Context>(metrics: metrics))
        VerifyReceiptController(routes: self).add(to: observed)
        VerifyController(routes: self).add(to: observed)
        NotificationController(routes: self).add(to: observed)
        LedgerController(routes: self).add(to: observed)
        SyncController(routes: self).add(to: observed)
        router.get("/health") { _, _ in
            Self.response(.ok, contentType: "application/json", body: Array(#"{"status":"ok"}"#.utf8))
        }
        router.get("/metrics") { _, _ in
            await self.metrics.refreshWebhookQueue()
            let text = self.metrics.exposition(
                cache: self.decider.cacheStatistics, renderings: self.renderings.statistics,
                inFlight: self.intake.slots.current)
            return Self.response(.ok, contentType: "text/plain; version=0.0.4; charset=utf-8", body: text)
        }
    }

    /// The route of a verifyReceipt endpoint: `/verifyReceipt` stands in for
    /// `https://buy.itunes.apple.com/verifyReceipt`, `/sandbox/verifyReceipt` for the sandbox one.
    package static func path(_ endpoint: ReceiptEnvironment) -> String {
        endpoint == .production ? "/verifyReceipt" : "/sandbox/verifyReceipt"
    }

    // MARK: - Steps every receipt route takes

    /// Calls the intake; its refusal becomes the server's, with the same code and message.
    ///
    /// This, the body reader and the receipt-verifying handlers (`POST /verifyReceipt`, `/sandbox/verifyReceipt` and
    /// `/v1/verify` with a receipt) are `nonisolated(nonsending)`, as the intake's ``ReceiptIntake/verify(_:logger:)``
    /// is: they run on the executor of the request's task. The server's event loops are the global executor and run
    /// its jobs as their own serial executor, so each step that instead started on the global executor, or returned to
    /// it, queued the task on its event loop again: ten of the 60 jobs a verifyReceipt request ran (BENCHMARKS.md,
    /// "Issue 28", "Thirteenth session").
    nonisolated(nonsending) func calling<T>(
        _ body: nonisolated(nonsending) () async throws(IntakeError) -> T
    ) async throws(ServerError) -> T {
        do {
            return try await body()
        } catch {
            throw ServerError(error)
        }
    }

    /// As the asynchronous `calling(_:)`, for a check that does not wait.
    func calling<T>(_ body: () throws(IntakeError) -> T) throws(ServerError) -> T {
        do {
            return try body()
        } catch {
            throw ServerError(error)
        }
    }

    /// Counts and logs what a request was answered once its receipt was looked at (or, for a wrong
    /// password on the verifyReceipt routes, instead): the one place the receipt routes record an answer.
    func noteAnswer(status: Int, result: AttributedVerdict?, request: Request, context: some RequestContext) {
        metrics.recordAnswer(route: Self.route(of: request, context: context), status: status, result: result)
        // The line is at `debug`: below the default level, its metadata is not even built.
        guard context.logger.logLevel <= .debug else { return }
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

    // MARK: - Responses

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
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
