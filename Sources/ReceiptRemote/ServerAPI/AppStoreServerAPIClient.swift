public import AsyncHTTPClient
public import Logging
import NIOCore
import NIOHTTP1
import ReceiptModel
public import ReceiptVerification

/// Apple's App Store Server API, asked the way a careful operator would, with every signed item verified locally.
///
/// - **Auth:** an ES256 JWT per bundle id (``AppStoreAPIKey``), reused until shortly before it expires; after a 401
///   a new one is signed and the request sent once more to the same environment.
/// - **Rate:** per app, never more than ``Configuration/requestsPerSecond`` requests in any one-second window in
///   Production, a tenth of it (at least one) in Sandbox; a 429's `Retry-After` (a UNIX time in milliseconds) stops
///   every request for that app, in both environments, until it passes.
/// - **Retries:** Apple's retryable errors (4040002, 4040004, 4040006, 5000001), HTTP 5xx, timeouts and connection
///   failures, with backoff and jitter (``RetryPolicy``) inside the per-call deadline, behind a ``CircuitBreaker``.
/// - **Environment:** the one signed data states, when the caller has one; otherwise Production, then Sandbox when
///   Production does not know the id (4040010) or keeps refusing the renewed token (an app never released). Every
///   answer says which environment gave it.
/// - **Paging:** histories are walked to the end (`revision`/`hasMore`, `paginationToken`), with the same filters on
///   every page, in the environment that answered the first.
/// - **Verification:** each signed item goes through the JWS verifier (Apple's root pinned, markers, the operator's
///   policy); an item that fails, or whose app or environment differs from the unsigned envelope's, is returned with
///   its reason and is never valid. Nothing is dropped.
///
/// Time and randomness are injected (``RemoteClock``, `random`). The key, the tokens and the bodies are never logged.
public final class AppStoreServerAPIClient: Sendable {
    /// Hosts, limits and policies.
    public struct Configuration: Sendable {
        /// Apple's production base URL.
        public static let appleProductionURL = "https://api.storekit.apple.com"
        /// Apple's sandbox base URL.
        public static let appleSandboxURL = "https://api.storekit-sandbox.apple.com"

        /// The Production base URL; Apple's paths (`/inApps/v2/history/…`) are appended.
        public var productionURL: String
        /// The Sandbox base URL.
        public var sandboxURL: String
        /// Requests per second per app in Production (Apple's limit is 50); Sandbox gets a tenth, at least one.
        public var requestsPerSecond: Int
        /// The longest one HTTP attempt may take.
        public var attemptTimeout: Duration
        /// The longest one request may take, retries, waits for the rate and the environment hop included. A walk
        /// gives each page its own.
        public var deadline: Duration
        /// Retries and backoff.
        public var retry: RetryPolicy
        /// When the breaker opens and for how long.
        public var circuitBreaker: CircuitBreaker.Configuration
        /// The largest body accepted (a page holds 20 signed items of a few KB each).
        public var maximumResponseSize: Int
        /// The most pages one walk follows (a history of 20 items a page); past it the walk fails rather than run on.
        public var maximumPages: Int
        /// `exp` − `iat` of the tokens (at most 60 minutes).
        public var tokenLifetime: Duration
        /// How long before its expiry a token is replaced.
        public var tokenRenewalMargin: Duration
        /// The longest a `Retry-After` is honoured for; a later one (a clock far off, a hostile proxy) waits this long.
        public var maximumRetryAfter: Duration

        public init(
            productionURL: String = Configuration.appleProductionURL,
            sandboxURL: String = Configuration.appleSandboxURL, requestsPerSecond: Int = 50,
            attemptTimeout: Duration = .seconds(10), deadline: Duration = .seconds(30),
            retry: RetryPolicy = RetryPolicy(),
            circuitBreaker: CircuitBreaker.Configuration = CircuitBreaker.Configuration(),
            maximumResponseSize: Int = 4 * 1024 * 1024, maximumPages: Int = 10_000,
            tokenLifetime: Duration = .seconds(1200), tokenRenewalMargin: Duration = .seconds(120),
            maximumRetryAfter: Duration = .seconds(3600)
        ) {
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.requestsPerSecond = max(1, requestsPerSecond)
            self.attemptTimeout = attemptTimeout
            self.deadline = deadline
            self.retry = retry
            self.circuitBreaker = circuitBreaker
            self.maximumResponseSize = maximumResponseSize
            self.maximumPages = max(1, maximumPages)
            self.tokenLifetime = tokenLifetime
            self.tokenRenewalMargin = tokenRenewalMargin
            self.maximumRetryAfter = maximumRetryAfter
        }

        /// The base URL of an environment (Xcode has none: Sandbox's).
        public func url(for environment: ReceiptEnvironment) -> String {
            environment == .production ? productionURL : sandboxURL
        }
    }

    public let configuration: Configuration
    /// The verifier every signed item goes through; its policy is the operator's.
    public let verifier: ReceiptVerifier
    /// The policy notifications from Get Notification History are held to (as pushed ones are).
    public let notificationPolicy: NotificationPolicy
    /// The breaker guarding the API.
    package let circuitBreaker: CircuitBreaker
    let tokens: AppStoreAPITokens
    let limiter: APIRateLimiter
    let clock: any RemoteClock
    private let httpClient: HTTPClient
    private let random: @Sendable () -> Double
    let logger: Logger

    /// - Parameters:
    ///   - key: the operator's in-app purchase key.
    ///   - verifier: verifies every signed item (its trust anchors and policy are the operator's).
    ///   - notificationPolicy: what a notification must be to count (``NotificationPolicy``).
    ///   - httpClient: the AsyncHTTPClient to send with; the caller owns its lifecycle.
    ///   - clock: monotonic time for deadlines, backoff, the rate and the breaker; wall time for tokens and
    ///     `Retry-After`.
    ///   - random: a number in [0, 1) for backoff jitter.
    /// - Throws: ``RemoteError`` `remote.invalid_configuration` when a base URL is not https (plain http only to
    ///   loopback).
    public init(
        key: AppStoreAPIKey, verifier: ReceiptVerifier, notificationPolicy: NotificationPolicy = NotificationPolicy(),
        configuration: Configuration = Configuration(), httpClient: HTTPClient = .shared,
        clock: any RemoteClock = SystemRemoteClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        logger: Logger = Logger(label: "app-store-server-api")
    ) throws(RemoteError) {
        try VerifyReceiptClient.requireTLS([configuration.productionURL, configuration.sandboxURL])
        self.configuration = configuration
        self.verifier = verifier
        self.notificationPolicy = notificationPolicy
        self.tokens = AppStoreAPITokens(
            key: key, lifetime: configuration.tokenLifetime, renewalMargin: configuration.tokenRenewalMargin)
        self.limiter = APIRateLimiter(productionRate: configuration.requestsPerSecond)
        self.clock = clock
        self.httpClient = httpClient
        self.random = random
        self.logger = logger
        circuitBreaker = CircuitBreaker(configuration: configuration.circuitBreaker, clock: clock)
    }

    /// Apple's error codes worth asking again for (`GeneralInternalRetryable`, the retryable not-found codes).
    static let retryableErrorCodes: Set<Int> = [4_040_002, 4_040_004, 4_040_006, 5_000_001]
    /// "Transaction id not found" and "original transaction id not found": not in this environment.
    static let notFoundErrorCodes: Set<Int> = [4_040_010, 4_040_005]

    /// Sends `request` for `bundleID` and returns Apple's successful answer and the environment that gave it.
    /// - Parameter environment: the environment signed data states; `nil` asks Production, then Sandbox.
    /// - Throws: ``RemoteError``: `remote.not_found`, `remote.unauthorized`, `remote.api_error`,
    ///   `remote.rate_limited`, `remote.circuit_open`, `remote.deadline_exceeded`, `remote.retries_exhausted`,
    ///   `remote.timeout`, `remote.unavailable`, `remote.malformed_response`, `remote.response_too_large`,
    ///   `remote.invalid_configuration`, `remote.cancelled`.
    func send(_ request: AppStoreAPIRequest, bundleID: String, environment stated: ReceiptEnvironment?)
        async throws(RemoteError) -> (AppStoreAPIResponse, ReceiptEnvironment)
    {
        let deadline = clock.now() + configuration.deadline
        var environment: ReceiptEnvironment = stated.map { $0 == .production ? .production : .sandbox } ?? .production
        let mayHop = stated == nil
        var renewed = false
        var attempts = 0
        var failedAttempts = 0
        var lastFailure: RemoteError?
        while true {
            if Task.isCancelled { throw RemoteError(.cancelled, "the call was cancelled", attempts: attempts) }
            let ticket = try await waitForBudget(
                bundleID, environment, deadline: deadline, attempts: attempts, after: lastFailure)
            guard let permit = circuitBreaker.acquire() else {
                limiter.finish(ticket, at: clock.now())
                throw RemoteError(
                    .circuitOpen, "the circuit breaker is open after repeated failures",
                    lastStatus: lastFailure?.lastStatus, attempts: attempts)
            }
            attempts += 1
            var attemptLogger = logger
            attemptLogger[metadataKey: "endpoint"] = "\(request.name)"
            attemptLogger[metadataKey: "environment"] = "\(environment.endpointName)"
            attemptLogger[metadataKey: "attempt"] = "\(attempts)"
            let token: String
            do {
                token = try tokens.token(for: bundleID, now: clock.wallTime().secondsSince1970)
            } catch {
                limiter.finish(ticket, at: clock.now())
                circuitBreaker.recordNeutral(permit)
                throw error
            }
            let remaining = max(.milliseconds(1), deadline - clock.now())
            let outcome = await attempt(
                request, environment: environment, token: token, timeout: min(configuration.attemptTimeout, remaining),
                logger: attemptLogger)
            // The answer is back (or the attempt failed): the request reached Apple, if it did, before now.
            limiter.finish(ticket, at: clock.now())
            let failure: RemoteError
            switch try judge(
                outcome, request, environment: environment, mayHop: mayHop, renewed: renewed, bundleID: bundleID,
                token: token, permit: permit, attempts: attempts, logger: attemptLogger)
            {
            case .answered(let response):
                return (response, environment)
            case .rateLimited(let error):
                lastFailure = error
                continue
            case .renewToken:
                renewed = true
                continue
            case .hopToSandbox:
                environment = .sandbox
                renewed = false
                continue
            case .retry(let error):
                failure = error
            }
            lastFailure = failure
            failedAttempts += 1
            guard failedAttempts < configuration.retry.maximumAttempts else {
                logger.warning(
                    "App Store Server API gave up",
                    metadata: ["endpoint": "\(request.name)", "code": "\(failure.code)", "attempts": "\(attempts)"])
                throw failure.with(attempts: attempts)
            }
            let delay = configuration.retry.delay(beforeRetry: failedAttempts, random: random())
            guard clock.now() + delay < deadline else { throw deadlineExceeded(after: failure, attempts: attempts) }
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw RemoteError(.cancelled, "cancelled while waiting to retry", attempts: attempts)
            }
        }
    }

    /// What one attempt's outcome means for the request.
    private enum Next {
        /// Apple's successful answer.
        case answered(AppStoreAPIResponse)
        /// A 429: the app now waits for its `Retry-After`; then the same request goes again (not a retry).
        case rateLimited(RemoteError)
        /// A first 401: a new token, the same environment.
        case renewToken
        /// Production does not know the id, or refuses the app: Sandbox, when no signed data named the environment.
        case hopToSandbox
        /// A failure worth another attempt, if the budget allows.
        case retry(RemoteError)
    }

    /// Judges one attempt (and records it with the breaker): an answer, a wait, a new token, the other environment, a
    /// retry, or (thrown) a failure that ends the request.
    private func judge(
        _ outcome: Result<AppStoreAPIResponse, RemoteError>, _ request: AppStoreAPIRequest,
        environment: ReceiptEnvironment, mayHop: Bool, renewed: Bool, bundleID: String, token: String,
        permit: CircuitBreaker.Permit, attempts: Int, logger: Logger
    ) throws(RemoteError) -> Next {
        let response: AppStoreAPIResponse
        switch outcome {
        case .failure(let error):
            if error.code == .cancelled {
                circuitBreaker.recordNeutral(permit)
                throw error.with(attempts: attempts)
            }
            circuitBreaker.recordFailure()
            return .retry(error)
        case .success(let answered):
            response = answered
        }
        let code = response.errorCode
        let name = environment.endpointName
        switch response.status {
        case 200..<300:
            circuitBreaker.recordSuccess()
            logger.debug("App Store Server API answered", metadata: ["status": "\(response.status)"])
            return .answered(response)
        case 429:
            // Apple is well and says when: not a failure, not a retry, and the whole app waits.
            circuitBreaker.recordNeutral(permit)
            limiter.block(bundleID, until: retryAfter(response.retryAfter))
            logger.notice(
                "App Store Server API rate limit: waiting",
                metadata: ["retry_after_ms": "\(response.retryAfter?.millisecondsSince1970 ?? -1)"])
            return .rateLimited(RemoteError(.rateLimited, "Apple answered 429", lastStatus: code ?? 4_290_000))
        case 401:
            circuitBreaker.recordSuccess()
            tokens.discard(token, for: bundleID)
            if !renewed { return .renewToken }
            guard mayHop, environment == .production else {
                throw RemoteError(
                    .unauthorized,
                    "\(name) refused a renewed token for \(bundleID) (HTTP 401): check the key, its id, the issuer id and the bundle id",
                    attempts: attempts)
            }
            logger.info("Production refuses the app (401 after renewal); asking Sandbox")
            return .hopToSandbox
        default:
            break
        }
        if let code, Self.notFoundErrorCodes.contains(code) {
            circuitBreaker.recordSuccess()
            if mayHop, environment == .production { return .hopToSandbox }
            throw RemoteError(
                .notFound, "\(name) does not know the id (\(code))", lastStatus: code, attempts: attempts)
        }
        let detail = "HTTP \(response.status)" + (code.map { ", errorCode \($0)" } ?? "")
        guard response.status >= 500 || code.map(Self.retryableErrorCodes.contains) == true else {
            // A 4xx Apple will answer the same way again: our request is wrong, and Apple is well.
            circuitBreaker.recordSuccess()
            throw RemoteError(
                .apiError, "\(name) refused \(request.name): \(detail)", lastStatus: code, attempts: attempts)
        }
        circuitBreaker.recordFailure()
        return .retry(
            RemoteError(.retriesExhausted, "\(name) answered \(detail) on every attempt", lastStatus: code))
    }

    /// Waits until the app's budget in `environment` allows one more request and any `Retry-After` has passed.
    /// - Returns: the reservation, to finish once the request is answered.
    /// - Throws: `remote.rate_limited` (a `Retry-After` holds past the deadline), `remote.deadline_exceeded`,
    ///   `remote.cancelled`.
    private func waitForBudget(
        _ bundleID: String, _ environment: ReceiptEnvironment, deadline: Duration, attempts: Int,
        after lastFailure: RemoteError?
    ) async throws(RemoteError) -> APIRateLimiter.Ticket {
        let key = APIRateLimiter.Key(bundleID: bundleID, environment: environment)
        while true {
            let now = clock.now()
            let wait: Duration
            var reserved: APIRateLimiter.Ticket?
            switch limiter.reserve(key, now: now, latest: deadline) {
            case .at(let instant, let ticket):
                wait = instant - now
                reserved = ticket
            case .waitForEarlier:
                guard now + Self.pollInterval < deadline else {
                    throw deadlineExceeded(after: lastFailure, attempts: attempts)
                }
                wait = Self.pollInterval
            case .tooLate:
                if limiter.blocked(bundleID, now: now).map({ $0 > deadline }) == true {
                    throw RemoteError(
                        .rateLimited, "Apple's Retry-After for \(bundleID) holds past this call's deadline",
                        lastStatus: 4_290_000, attempts: attempts)
                }
                throw deadlineExceeded(after: lastFailure, attempts: attempts)
            }
            if wait > .zero {
                do {
                    try await clock.sleep(for: wait)
                } catch {
                    if let reserved { limiter.finish(reserved, at: clock.now()) }
                    throw RemoteError(.cancelled, "cancelled while waiting for the rate limit", attempts: attempts)
                }
            }
            guard let reserved else { continue }
            // A 429 may have arrived while this request waited: its reservation is spent, the wait starts again.
            guard limiter.blocked(bundleID, now: clock.now()) != nil else { return reserved }
            limiter.finish(reserved, at: clock.now())
        }
    }

    /// How often a request waiting for an earlier one in flight looks again.
    static let pollInterval = Duration.milliseconds(5)

    /// The monotonic instant a `Retry-After` names: one second from now without a usable one, never more than
    /// ``Configuration/maximumRetryAfter`` from now.
    private func retryAfter(_ instant: ReceiptDate?) -> Duration {
        let now = clock.now()
        guard let instant else { return now + .seconds(1) }
        let wall = clock.wallTime().millisecondsSince1970
        let (difference, overflow) = instant.millisecondsSince1970.subtractingReportingOverflow(wall)
        guard !overflow else { return now + configuration.maximumRetryAfter }
        // Sent at the millisecond named, not before it: the wall clock's reading is floored to a millisecond.
        let wait = Duration.milliseconds(max(0, difference) + 1)
        return now + min(wait, configuration.maximumRetryAfter)
    }

    private func deadlineExceeded(after failure: RemoteError?, attempts: Int) -> RemoteError {
        RemoteError(
            .deadlineExceeded,
            "no answer within the deadline of \(configuration.deadline)"
                + (failure.map { "; last failure \($0.code)" } ?? ""),
            lastStatus: failure?.lastStatus, attempts: attempts)
    }

    /// One HTTP exchange: the request with its token, the status, a capped body, a strict decode.
    private func attempt(
        _ request: AppStoreAPIRequest, environment: ReceiptEnvironment, token: String, timeout: Duration,
        logger: Logger
    ) async -> Result<AppStoreAPIResponse, RemoteError> {
        var http = HTTPClientRequest(url: configuration.url(for: environment) + request.target)
        http.method = HTTPMethod(rawValue: request.method.rawValue)
        http.headers.add(name: "Authorization", value: "Bearer \(token)")
        http.headers.add(name: "Accept", value: "application/json")
        if let body = request.body {
            http.headers.add(name: "Content-Type", value: "application/json")
            http.body = .bytes(body)
        }
        let limit = configuration.maximumResponseSize
        do {
            let response = try await httpClient.execute(
                http, timeout: VerifyReceiptClient.timeAmount(timeout),
                logger: LevelFloorLogHandler.logger(logger, floor: VerifyReceiptClient.httpClientLogFloor))
            let buffer = try await response.body.collect(upTo: limit)
            return Result { () throws(RemoteError) in
                try AppStoreAPIResponse(
                    status: Int(response.status.code), body: Array(buffer.readableBytesView),
                    retryAfter: response.headers.first(name: "Retry-After"))
            }
        } catch {
            return .failure(VerifyReceiptClient.map(error, limit: limit, environment: environment))
        }
    }
}
