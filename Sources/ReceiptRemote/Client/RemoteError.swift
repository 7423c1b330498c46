public import BER

/// Why Apple (verifyReceipt, or the App Store Server API) gave no usable answer: unreachable, too slow, refused by
/// the circuit breaker, an answer that is not what was asked for, or a refusal the API states.
///
/// `code` is stable and is what equality compares; `reason` is for people and may change. Never carries
/// the receipt data or the shared secret.
public struct RemoteError: CodedError {
    /// A stable identifier of the kind of failure, e.g. `remote.unavailable`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case unavailable = "remote.unavailable"
            case timeout = "remote.timeout"
            case deadlineExceeded = "remote.deadline_exceeded"
            case circuitOpen = "remote.circuit_open"
            case httpStatus = "remote.http_status"
            case malformedResponse = "remote.malformed_response"
            case responseTooLarge = "remote.response_too_large"
            case retriesExhausted = "remote.retries_exhausted"
            case environmentLoop = "remote.environment_loop"
            case invalidConfiguration = "remote.invalid_configuration"
            case cancelled = "remote.cancelled"
            case apiError = "remote.api_error"
            case unauthorized = "remote.unauthorized"
            case notFound = "remote.not_found"
            case rateLimited = "remote.rate_limited"
            case invalidArgument = "remote.invalid_argument"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The connection failed, was refused, reset or dropped, or verifyReceipt answered HTTP 5xx every time (the
        /// App Store Server API client reports 5xx to the end as ``retriesExhausted``).
        public static let unavailable = Code(.unavailable)
        /// The last attempt did not complete within the per-attempt timeout.
        public static let timeout = Code(.timeout)
        /// The overall deadline passed before an answer arrived (no further attempt fitted).
        public static let deadlineExceeded = Code(.deadlineExceeded)
        /// The circuit breaker is open: recent calls failed, so Apple is not asked until the cool-down ends.
        public static let circuitOpen = Code(.circuitOpen)
        /// Apple answered with an HTTP status other than 200 that is not worth retrying (4xx, 3xx).
        public static let httpStatus = Code(.httpStatus)
        /// The body is not a verifyReceipt response: not JSON, not an object, wrong types, no `status`.
        public static let malformedResponse = Code(.malformedResponse)
        /// The body exceeds ``VerifyReceiptClient/Configuration/maximumResponseSize``.
        public static let responseTooLarge = Code(.responseTooLarge)
        /// Apple kept answering a "try again" status (21002, 21005, 21009, retryable 21100–21199) until
        /// the attempts ran out; ``RemoteError/lastStatus`` has the last one.
        public static let retriesExhausted = Code(.retriesExhausted)
        /// Both environments sent the receipt to the other one (21007 then 21008, or the reverse).
        public static let environmentLoop = Code(.environmentLoop)
        /// A base URL is not an absolute http(s) URL.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The calling task was cancelled.
        public static let cancelled = Code(.cancelled)
        /// The App Store Server API refused the request with an error that asking again will not change (an
        /// invalid id, a bad request); ``RemoteError/lastStatus`` has Apple's `errorCode`.
        public static let apiError = Code(.apiError)
        /// The App Store Server API answered 401 again after the token was renewed, in every environment tried: the
        /// key, its id, the issuer or the bundle id is wrong, or the key was revoked.
        public static let unauthorized = Code(.unauthorized)
        /// The App Store Server API does not know the id in any environment tried (4040010, 4040005).
        public static let notFound = Code(.notFound)
        /// The App Store Server API asked to wait (429, `Retry-After`) past the call's deadline.
        public static let rateLimited = Code(.rateLimited)
        /// An id or filter given to the App Store Server API client is not one Apple could take (empty, too long, or
        /// characters outside letters, digits, `.`, `-`, `_`); nothing was sent.
        public static let invalidArgument = Code(.invalidArgument)

        /// Every code.
        static let all: [Code] = [
            .unavailable, .timeout, .deadlineExceeded, .circuitOpen, .httpStatus, .malformedResponse,
            .responseTooLarge, .retriesExhausted, .environmentLoop, .invalidConfiguration, .cancelled, .apiError,
            .unauthorized, .notFound, .rateLimited, .invalidArgument,
        ]

        /// The code as a dotted string.
        public var description: String { kind.rawValue }
    }

    /// The stable code.
    public let code: Code
    /// What happened, in words (never the receipt or the secret).
    public let reason: String
    /// Apple's last verifyReceipt `status` (``Code/retriesExhausted``, ``Code/environmentLoop``) or App Store Server
    /// API `errorCode` (``Code/apiError``, ``Code/notFound``, ``Code/retriesExhausted``), when one was received.
    public let lastStatus: Int?
    /// How many HTTP attempts were made before giving up.
    public let attempts: Int
    public let file: String
    public let line: UInt

    public init(
        _ code: Code, _ reason: String, lastStatus: Int? = nil, attempts: Int = 0, file: String = #fileID,
        line: UInt = #line
    ) {
        self.code = code
        self.reason = reason
        self.lastStatus = lastStatus
        self.attempts = attempts
        self.file = file
        self.line = line
    }

    /// The same error with the attempt count filled in.
    func with(attempts: Int) -> RemoteError {
        RemoteError(code, reason, lastStatus: lastStatus, attempts: attempts, file: file, line: line)
    }

}
