public import AsyncHTTPClient
public import Logging
import NIOCore
import NIOHTTP1
public import ReceiptVerification

/// Apple's verifyReceipt client, done the way Apple documents it and robust to Apple's bad days.
///
/// - Production first, then sandbox on 21007 (a sandbox receipt); when asked to start from sandbox,
///   production on 21008. Exactly one hop per call.
/// - "Try again" answers (21002, 21005, 21009, and 21100–21199 with `is-retryable: true`), HTTP 5xx,
///   timeouts and connection errors are retried with exponential backoff and jitter (``RetryPolicy``),
///   within a per-attempt timeout and an overall deadline.
/// - A ``CircuitBreaker`` refuses calls while Apple keeps failing.
/// - Responses are capped (``Configuration/maximumResponseSize``) and strictly decoded
///   (``VerifyReceiptResponse``); anything else is a ``RemoteError``.
///
/// Time and randomness are injected (``RemoteClock``, `random`); the receipt data and shared secret are
/// never logged at any level.
public final class VerifyReceiptClient: Sendable {
    /// Endpoints, limits and policies.
    public struct Configuration: Sendable {
        /// Apple's production endpoint.
        public static let appleProductionURL = "https://buy.itunes.apple.com/verifyReceipt"
        /// Apple's sandbox endpoint.
        public static let appleSandboxURL = "https://sandbox.itunes.apple.com/verifyReceipt"

        /// The production endpoint's URL.
        public var productionURL: String
        /// The sandbox endpoint's URL.
        public var sandboxURL: String
        /// The longest one HTTP attempt may take (connect, send, answer, body).
        public var attemptTimeout: Duration
        /// The longest a whole call may take, retries, backoff and the 21007 hop included.
        public var deadline: Duration
        /// Retries and backoff.
        public var retry: RetryPolicy
        /// When the breaker opens and for how long.
        public var circuitBreaker: CircuitBreaker.Configuration
        /// The largest response body accepted (Apple's answers with long histories reach a few hundred KB).
        public var maximumResponseSize: Int

        public init(
            productionURL: String = Configuration.appleProductionURL,
            sandboxURL: String = Configuration.appleSandboxURL, attemptTimeout: Duration = .seconds(10),
            deadline: Duration = .seconds(30), retry: RetryPolicy = RetryPolicy(),
            circuitBreaker: CircuitBreaker.Configuration = CircuitBreaker.Configuration(),
            maximumResponseSize: Int = 4 * 1024 * 1024
        ) {
            self.productionURL = productionURL
            self.sandboxURL = sandboxURL
            self.attemptTimeout = attemptTimeout
            self.deadline = deadline
            self.retry = retry
            self.circuitBreaker = circuitBreaker
            self.maximumResponseSize = maximumResponseSize
        }

        /// The URL for an environment.
        public func url(for environment: ReceiptEnvironment) -> String {
            environment.endpoint == .production ? productionURL : sandboxURL
        }
    }

    /// The configuration this client was made with.
    public let configuration: Configuration
    /// The breaker guarding Apple; its state can be read for health checks and metrics.
    package let circuitBreaker: CircuitBreaker
    private let httpClient: HTTPClient
    private let clock: any RemoteClock
    private let random: @Sendable () -> Double
    private let logger: Logger

    /// - Parameters:
    ///   - httpClient: the AsyncHTTPClient to send with; the caller owns its lifecycle. `.shared` by default.
    ///   - clock: now and sleep for deadlines, backoff and the breaker; the system clock by default.
    ///   - random: a number in [0, 1) for backoff jitter.
    ///   - logger: receives attempt, status and failure metadata; never the receipt or the secret.
    /// - Throws: ``RemoteError`` `remote.invalid_configuration` when a URL is not absolute http(s).
    public init(
        configuration: Configuration = Configuration(), httpClient: HTTPClient = .shared,
        clock: any RemoteClock = SystemRemoteClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        logger: Logger = Logger(label: "receipt-remote")
    ) throws(RemoteError) {
        try Self.requireTLS([configuration.productionURL, configuration.sandboxURL])
        self.configuration = configuration
        self.httpClient = httpClient
        self.clock = clock
        self.random = random
        self.logger = logger
        circuitBreaker = CircuitBreaker(configuration: configuration.circuitBreaker, clock: clock)
    }

    /// The lowest level AsyncHTTPClient may log at through this client's logger (see ``LevelFloorLogHandler``).
    static let httpClientLogFloor = Logger.Level.debug

    /// Apple's answers decide verdicts (and its API's are fetched with the operator's key), so they must come over
    /// TLS; plain HTTP is accepted only on loopback, for the stand-in.
    /// - Throws: ``RemoteError`` `remote.invalid_configuration` naming the first URL that is neither.
    static func requireTLS(_ urls: [String]) throws(RemoteError) {
        for url in urls {
            guard url.hasPrefix("https://") || isLoopbackHTTP(url), url.count > 8 else {
                throw RemoteError(
                    .invalidConfiguration, "\(url) is not an https URL (plain http is allowed only to loopback)")
            }
        }
    }

    /// `http://` to 127.0.0.0/8, `localhost` or `[::1]`.
    static func isLoopbackHTTP(_ url: String) -> Bool {
        guard url.hasPrefix("http://") else { return false }
        let authority = url.dropFirst("http://".count).prefix { $0 != "/" }
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.prefix { $0 != "]" }.dropFirst()
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Whether Apple asks to be asked again for this answer (`docs/receipt-format.md` §4).
    public static func isRetryable(_ response: VerifyReceiptResponse) -> Bool {
        switch response.status {
        case 21002, 21005, 21009: true
        case 21100...21199: response.isRetryable == true
        default: false
        }
    }

    /// Sends the receipt to verifyReceipt and returns Apple's final answer, whatever its status
    /// (0, 21003, 21004, 21006, …), after the environment hop and retries.
    ///
    /// - Throws: ``RemoteError`` when no final answer could be had: `remote.circuit_open`,
    ///   `remote.deadline_exceeded`, `remote.unavailable`, `remote.timeout`, `remote.retries_exhausted`,
    ///   `remote.malformed_response`, `remote.response_too_large`, `remote.http_status`,
    ///   `remote.environment_loop`, `remote.cancelled`.
    public func verify(_ request: VerifyReceiptRequest) async throws(RemoteError) -> VerifyReceiptResponse {
        let start = clock.now()
        let deadline = start + configuration.deadline
        let body = request.body
        var environment = request.startEnvironment.endpoint
        var hopped = false
        var attempts = 0
        var failedAttempts = 0
        var lastFailure: RemoteError?

        while true {
            if Task.isCancelled { throw RemoteError(.cancelled, "the call was cancelled", attempts: attempts) }
            let remaining = deadline - clock.now()
            guard remaining > .zero else {
                throw deadlineExceeded(after: lastFailure, attempts: attempts)
            }
            guard let permit = circuitBreaker.acquire() else {
                logger.debug(
                    "verifyReceipt refused: circuit open", metadata: ["environment": "\(environment.endpointName)"])
                throw RemoteError(
                    .circuitOpen, "the circuit breaker is open after repeated failures",
                    lastStatus: lastFailure?.lastStatus,
                    attempts: attempts)
            }
            attempts += 1
            var attemptLogger = logger
            attemptLogger[metadataKey: "environment"] = "\(environment.endpointName)"
            attemptLogger[metadataKey: "attempt"] = "\(attempts)"
            let timeout = min(configuration.attemptTimeout, remaining)
            let outcome = await attempt(body: body, environment: environment, timeout: timeout, logger: attemptLogger)

            let failure: RemoteError
            switch try judge(
                outcome, from: environment, hopped: hopped, permit: permit, attempts: attempts,
                logger: attemptLogger)
            {
            case .answered(let response):
                return response
            case .hop:
                hopped = true
                environment = environment.otherEndpoint
                continue
            case .retry(let error):
                failure = error
            }

            lastFailure = failure
            failedAttempts += 1
            guard failedAttempts < configuration.retry.maximumAttempts else {
                logger.warning(
                    "verifyReceipt gave up", metadata: ["code": "\(failure.code)", "attempts": "\(attempts)"])
                throw failure.with(attempts: attempts)
            }
            let delay = configuration.retry.delay(beforeRetry: failedAttempts, random: random())
            guard clock.now() + delay < deadline else {
                logger.warning("verifyReceipt gave up: deadline", metadata: ["attempts": "\(attempts)"])
                throw deadlineExceeded(after: failure, attempts: attempts)
            }
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw RemoteError(.cancelled, "cancelled while waiting to retry", attempts: attempts)
            }
        }
    }

    /// What one attempt's outcome means for the call.
    private enum Next {
        /// Apple's final answer.
        case answered(VerifyReceiptResponse)
        /// 21007 / 21008 from the wrong endpoint: ask the other one.
        case hop
        /// A failure worth another attempt, if the budget allows.
        case retry(RemoteError)
    }

    /// Judges one attempt: a final answer, a hop to the other endpoint, a failure to retry, or (thrown) a failure
    /// that ends the call. Records the attempt with the circuit breaker.
    private func judge(
        _ outcome: Result<VerifyReceiptResponse, RemoteError>, from environment: ReceiptEnvironment, hopped: Bool,
        permit: CircuitBreaker.Permit, attempts: Int, logger: Logger
    ) throws(RemoteError) -> Next {
        switch outcome {
        case .success(let response):
            logger.debug("verifyReceipt answered", metadata: ["status": "\(response.status)"])
            let wrongEnvironment =
                (response.status == 21007 && environment.endpoint == .production)
                || (response.status == 21008 && environment.endpoint == .sandbox)
            if response.status == 21007 || response.status == 21008 {
                circuitBreaker.recordSuccess()
                guard wrongEnvironment, !hopped else {
                    throw RemoteError(
                        .environmentLoop,
                        "status \(response.status) from \(environment.endpointName) after the other endpoint redirected",
                        lastStatus: response.status, attempts: attempts)
                }
                return .hop
            }
            guard Self.isRetryable(response) else {
                circuitBreaker.recordSuccess()
                var answered = response
                answered.answeredBy = environment
                return .answered(answered)
            }
            circuitBreaker.recordFailure()
            return .retry(
                RemoteError(
                    .retriesExhausted, "Apple answered \(response.status) (try again) on every attempt",
                    lastStatus: response.status))
        case .failure(let error):
            switch error.code {
            case .cancelled:
                circuitBreaker.recordNeutral(permit)
                throw error.with(attempts: attempts)
            case .httpStatus:
                // A 4xx says our request is wrong, not that Apple is down: not retried, not counted.
                circuitBreaker.recordSuccess()
                throw error.with(attempts: attempts)
            default:
                circuitBreaker.recordFailure()
                logger.debug("verifyReceipt attempt failed", metadata: ["code": "\(error.code)"])
                return .retry(error)
            }
        }
    }

    private func deadlineExceeded(after failure: RemoteError?, attempts: Int) -> RemoteError {
        RemoteError(
            .deadlineExceeded,
            "no answer within the deadline of \(configuration.deadline)"
                + (failure.map { "; last failure \($0.code)" } ?? ""),
            lastStatus: failure?.lastStatus, attempts: attempts)
    }

    /// One HTTP exchange: POST, status check, capped body, strict decode.
    private func attempt(
        body: [UInt8], environment: ReceiptEnvironment, timeout: Duration, logger: Logger
    ) async -> Result<VerifyReceiptResponse, RemoteError> {
        var request = HTTPClientRequest(url: configuration.url(for: environment))
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        request.body = .bytes(body)
        let limit = configuration.maximumResponseSize
        do {
            // Never below debug: AsyncHTTPClient's trace records dump the bytes of Apple's answer.
            let response = try await httpClient.execute(
                request, timeout: Self.timeAmount(timeout),
                logger: LevelFloorLogHandler.logger(logger, floor: Self.httpClientLogFloor))
            let status = response.status.code
            guard status == 200 else {
                // Drain (bounded) so the connection can be reused; the content is not needed.
                _ = try? await response.body.collect(upTo: 64 * 1024)
                if status >= 500 {
                    return .failure(RemoteError(.unavailable, "HTTP \(status) from \(environment.endpointName)"))
                }
                return .failure(RemoteError(.httpStatus, "HTTP \(status) from \(environment.endpointName)"))
            }
            let buffer = try await response.body.collect(upTo: limit)
            return Result { () throws(RemoteError) in try VerifyReceiptResponse(body: Array(buffer.readableBytesView)) }
        } catch {
            return .failure(Self.map(error, limit: limit, environment: environment))
        }
    }

    /// Turns what AsyncHTTPClient and NIO throw into codes.
    static func map(_ error: any Error, limit: Int, environment: ReceiptEnvironment) -> RemoteError {
        if error is NIOTooManyBytesError {
            return RemoteError(
                .responseTooLarge, "the response from \(environment.endpointName) exceeds \(limit) bytes")
        }
        if error is CancellationError {
            return RemoteError(.cancelled, "the call was cancelled")
        }
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout:
                return RemoteError(
                    .timeout, "no answer from \(environment.endpointName) within the attempt timeout (\(error))")
            case .cancelled:
                return RemoteError(.cancelled, "the call was cancelled")
            case .invalidURL, .emptyHost, .emptyScheme:
                return RemoteError(
                    .invalidConfiguration, "the \(environment.endpointName) URL is not usable (\(error))")
            default:
                return RemoteError(.unavailable, "\(environment.endpointName) failed: \(error)")
            }
        }
        return RemoteError(.unavailable, "\(environment.endpointName) failed: \(error)")
    }

    static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .hours(24) }
        return .nanoseconds(max(1, nanoseconds.partialValue + attoseconds / 1_000_000_000))
    }
}
