internal import HTTPTypes
public import Hummingbird
public import Logging
import ReceiptModel
public import ReceiptRemote
public import ReceiptVerification

/// The server's routes and their handlers: Apple's verifyReceipt contract, the project's `/v1/verify`,
/// `/health` and `/metrics`.
///
/// Handlers never throw: every refusal and every verdict is written as a response here, so the same
/// answers come back whether the router is driven in-process or over a socket.
public struct ReceiptRoutes: Sendable {
    public let configuration: ReceiptServerConfiguration
    public let decider: any ReceiptDecider
    public let metrics: ServerMetrics
    public let limiter: InFlightLimiter
    public let logger: Logger
    let bodyReader: BodyReader

    /// Response header naming who decided (`local` or `remote`); the body stays Apple's.
    static let decidedByHeader = HTTPField.Name("X-Receipt-Decided-By")!  // a valid constant token
    /// Response header with the deciding reason code, when the receipt was not valid.
    static let reasonHeader = HTTPField.Name("X-Receipt-Reason")!  // a valid constant token

    public init(
        configuration: ReceiptServerConfiguration, decider: any ReceiptDecider, metrics: ServerMetrics = ServerMetrics(),
        logger: Logger = Logger(label: "receipt-server")
    ) {
        self.configuration = configuration
        self.decider = decider
        self.metrics = metrics
        self.limiter = InFlightLimiter(limit: configuration.maximumInFlight)
        self.logger = logger
        self.bodyReader = BodyReader(maximumSize: configuration.maximumBodySize, timeout: configuration.bodyTimeout)
    }

    /// A router with every route.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        add(to: router)
        return router
    }

    /// Adds every route to `router`.
    public func add(to router: Router<BasicRequestContext>) {
        for endpoint in [ReceiptEnvironment.production, .sandbox] {
            router.post(RouterPath(Self.path(endpoint))) { request, _ in
                await self.verifyReceipt(request, endpoint: endpoint)
            }
        }
        router.post("/v1/verify") { request, _ in
            await self.verify(request)
        }
        router.get("/health") { _, _ in
            Self.response(200, contentType: "application/json", body: Array(#"{"status":"ok"}"#.utf8))
        }
        router.get("/metrics") { _, _ in
            let text = self.metrics.exposition(cache: self.decider.cacheStatistics, inFlight: self.limiter.current)
            return Self.response(200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: text)
        }
    }

    // MARK: - verifyReceipt

    /// `POST /verifyReceipt` and `POST /sandbox/verifyReceipt`: Apple's request and response bodies.
    /// Always HTTP 200 with a `status`, except 413 / 408 for bodies too large or too slow and 503
    /// (status 21005) when overloaded, so plain HTTP clients and proxies see those too.
    public func verifyReceipt(_ request: Request, endpoint: ReceiptEnvironment) async -> Response {
        let started = ContinuousClock.now
        let path = Self.path(endpoint)
        var record = ServerMetrics.Record(endpoint: path, httpStatus: 200, duration: .zero)
        defer {
            record.duration = ContinuousClock.now - started
            metrics.record(record)
        }
        func refuse(_ error: ServerError, status: Int, httpStatus: Int = 200) -> Response {
            record.rejection = error.code
            record.appleStatus = status
            record.httpStatus = httpStatus
            logger.debug(
                "refused", metadata: ["endpoint": "\(path)", "code": "\(error.code)", "status": "\(status)"])
            var response = Self.response(httpStatus, contentType: "application/json", body: VerifyReceiptBody.status(status))
            if httpStatus == 503 { response.headers[.retryAfter] = "1" }
            return response
        }

        let body: [UInt8]
        do {
            body = try await bodyReader.read(request)
        } catch {
            let httpStatus = error.code == .bodyTooLarge ? 413 : (error.code == .bodyTimeout ? 408 : 400)
            return refuse(error, status: 21000, httpStatus: httpStatus)
        }
        let receiptData: [UInt8]
        let password: String?
        let excludeOld: Bool
        do {
            let json = try RequestJSON(parsing: body)
            guard let data = try json.string("receipt-data") else {
                return refuse(ServerError(.missingReceiptData, "no receipt-data"), status: 21000)
            }
            receiptData = data
            password = try json.string("password").map { String(decoding: $0, as: UTF8.self) }
            excludeOld = try json.bool("exclude-old-transactions") ?? false
        } catch {
            return refuse(error, status: 21000)
        }
        if let secret = configuration.sharedSecret, let password, !Self.constantTimeEquals(secret, password) {
            record.appleStatus = 21004
            logger.debug("shared secret mismatch", metadata: ["endpoint": "\(path)"])
            return Self.response(200, contentType: "application/json", body: VerifyReceiptBody.status(21004))
        }
        guard limiter.tryAcquire() else {
            return refuse(ServerError(.overloaded, "more than \(limiter.limit) requests in flight"), status: 21005, httpStatus: 503)
        }
        let now = configuration.clock()
        let result = await decider.verify(
            receiptData,
            request: FallbackRequest(
                password: password ?? configuration.sharedSecret, excludeOldTransactions: excludeOld ? true : nil,
                subscriptionStateAt: password == nil ? nil : now, validationTime: validationTime(now: now),
                startEnvironment: endpoint == .sandbox ? .sandbox : .production))
        limiter.release()
        record.note(result)

        let verdict = result.verdict
        let local = VerifyReceiptStatus.status(of: result)
        let status = VerifyReceiptStatus.status(
            of: result, endpoint: endpoint, acceptsAnyEnvironment: configuration.acceptsAnyEnvironment)
        var headers: HTTPFields = [.contentType: "application/json"]
        headers[Self.decidedByHeader] = result.decidedBy.rawValue
        // A reason explains a refusal; a status-0 answer has none to give (a note such as the fallback's
        // remote.subscription_expired stays in the verdict, not in the header). A valid receipt refused for
        // its unknown environment is explained by the policy's environment code.
        if status != 0 {
            let reason = local == 0 && verdict.environment == nil ? Reason.Code.policyEnvironmentRejected : verdict.reason?.code
            if let reason { headers[Self.reasonHeader] = reason.description }
        }

        let responseBody: [UInt8]
        if status != local {
            responseBody = VerifyReceiptBody.status(status)
        } else if result.decidedBy == .remote, let apple = result.appleResponse, apple.status == status {
            // Apple decided: its answer is passed through unchanged.
            responseBody = apple.body
        } else if status == 0, let environment = verdict.environment, case .appReceipt(let receipt)? = verdict.receipt {
            let latest = LatestReceiptInfo.purchases(in: receipt.payload, excludingOld: excludeOld)
            responseBody = VerifyReceiptBody.valid(
                payload: receipt.payload, environment: environment.rawValue,
                requestDate: now, latestReceiptInfo: latest.isEmpty ? nil : latest,
                // Apple returns latest_receipt for subscription receipts when given the shared secret.
                latestReceipt: (password != nil && !latest.isEmpty) ? receiptData : nil)
        } else {
            // A local status 0 is only ever an app receipt; anything else cannot be vouched for here.
            responseBody = VerifyReceiptBody.status(status == 0 ? 21003 : status)
        }
        record.appleStatus = status
        logger.debug(
            "answered",
            metadata: [
                "endpoint": "\(path)", "status": "\(status)", "outcome": "\(verdict.outcome)",
                "decided_by": "\(result.decidedBy)", "reason": "\(verdict.reason?.code.description ?? "-")",
            ])
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: responseBody)))
    }

    /// The route of a verifyReceipt endpoint: `/verifyReceipt` stands in for
    /// `https://buy.itunes.apple.com/verifyReceipt`, `/sandbox/verifyReceipt` for the sandbox one.
    public static func path(_ endpoint: ReceiptEnvironment) -> String {
        endpoint == .production ? "/verifyReceipt" : "/sandbox/verifyReceipt"
    }

    func validationTime(now: ReceiptDate) -> ValidationTime {
        switch configuration.validationTime {
        case .receiptCreation: .receiptCreation
        case .now: .now(now)
        }
    }

    // MARK: - /v1/verify

    /// `POST /v1/verify`: `{"receipt_data": base64, options…}` as JSON, or the receipt's raw bytes as
    /// `application/octet-stream` (options then in the query). Verdicts are HTTP 200; refusals are
    /// 400, 408, 413, 415 or 503 with `{"error": {"code", "message"}}`.
    ///
    /// Options: `validation_time` (`creation`, `now`, or an RFC 3339 instant), `exclude_old_transactions`,
    /// `password`, `allow_remote` (default true). Each may only narrow the operator's configuration
    /// (``V1Options``): a `password` other than the configured shared secret is refused with 403
    /// `server.shared_secret_mismatch`, a looser `validation_time` with 400 `server.invalid_option`.
    public func verify(_ request: Request) async -> Response {
        let started = ContinuousClock.now
        var record = ServerMetrics.Record(endpoint: "/v1/verify", httpStatus: 200, duration: .zero)
        defer {
            record.duration = ContinuousClock.now - started
            metrics.record(record)
        }
        func refuse(_ error: ServerError) -> Response {
            record.rejection = error.code
            record.httpStatus = error.httpStatus
            logger.debug("refused", metadata: ["endpoint": "/v1/verify", "code": "\(error.code)"])
            var response = Self.response(error.httpStatus, contentType: "application/json", body: error.jsonBody)
            if error.httpStatus == 503 { response.headers[.retryAfter] = "1" }
            return response
        }

        let contentType = request.headers[.contentType].map { Self.mediaType($0) }
        let isRaw: Bool
        switch contentType {
        case nil, "application/json": isRaw = false
        case "application/octet-stream": isRaw = true
        case .some(let other):
            return refuse(
                ServerError(
                    .unsupportedMediaType, "Content-Type \(other) is not application/json or application/octet-stream"))
        }
        let options: V1Options
        let receiptData: [UInt8]
        do throws(ServerError) {
            let body = try await bodyReader.read(request)
            if isRaw {
                receiptData = body
                options = try V1Options(query: request.uri.queryParameters.map { (String($0.key), String($0.value)) })
            } else {
                let json = try RequestJSON(parsing: body)
                guard let data = try json.string("receipt_data") else {
                    throw ServerError(.missingReceiptData, "no receipt_data")
                }
                receiptData = data
                options = try V1Options(json: json)
            }
        } catch {
            return refuse(error)
        }
        // The operator's configuration wins: the same shared-secret check as /verifyReceipt (a wrong
        // password is refused here, never forwarded to Apple), and only a stricter validation time.
        if let secret = configuration.sharedSecret, let password = options.password,
            !Self.constantTimeEquals(secret, password)
        {
            return refuse(ServerError(.sharedSecretMismatch, "password is not this server's shared secret"))
        }
        let now = configuration.clock()
        let time: ValidationTime
        do throws(ServerError) {
            time = try options.validationTime(policy: configuration.validationTime, now: now)
        } catch {
            return refuse(error)
        }
        guard limiter.tryAcquire() else {
            return refuse(ServerError(.overloaded, "more than \(limiter.limit) requests in flight"))
        }
        let result = await decider.verify(
            receiptData,
            request: FallbackRequest(
                password: options.password ?? configuration.sharedSecret,
                excludeOldTransactions: options.excludeOldTransactions ? true : nil,
                subscriptionStateAt: options.password == nil ? nil : now, validationTime: time,
                allowsRemote: options.allowsRemote))
        limiter.release()
        // Text that is not base64 is a transport mistake (HTTP 400), not a verdict about a receipt.
        if !isRaw, result.decidedBy == .local, result.verdict.decodingError?.code == .invalidBase64 {
            return refuse(ServerError(.invalidBase64, "receipt_data is not base64 text"))
        }

        record.note(result)
        let status = VerifyReceiptStatus.status(of: result)
        record.appleStatus = status
        logger.debug(
            "answered",
            metadata: [
                "endpoint": "/v1/verify", "status": "\(status)", "outcome": "\(result.verdict.outcome)",
                "decided_by": "\(result.decidedBy)", "reason": "\(result.verdict.reason?.code.description ?? "-")",
            ])
        let body = VerdictJSON.response(
            result, requestDate: now, excludeOldTransactions: options.excludeOldTransactions)
        return Self.response(200, contentType: "application/json", body: body)
    }

    // MARK: - Helpers

    static func response(_ status: Int, contentType: String, body: [UInt8]) -> Response {
        Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// `application/json; charset=utf-8` → `application/json`.
    static func mediaType(_ value: String) -> String {
        let type = value.split(separator: ";", maxSplits: 1).first ?? ""
        return type.trimmingSpaces().lowercased()
    }

    /// Compares secrets without an early exit, so timing does not reveal a matching prefix.
    static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
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
