public import ReceiptModel
public import ReceiptVerification

/// Everything the server is told up front: where to listen, how "now" is read, the environment
/// contract, the shared secret and the limits. Verification settings live in the decider's verifier.
public struct ReceiptServerConfiguration: Sendable, CustomStringConvertible {
    /// The address to bind; loopback by default.
    public var host: String
    /// The TCP port; 0 picks a free one.
    public var port: Int
    /// The instant chains are validated at: `.receiptCreation` (Apple's receipts stay verifiable after their
    /// leaf expires), `.now` (the instant the server answers, read from ``clock`` once per request) or a
    /// fixed instant.
    public var validationTime: ValidationTime
    /// Answer both verifyReceipt endpoints for receipts of any environment instead of Apple's
    /// 21007 / 21008.
    public var acceptsAnyEnvironment: Bool
    /// The app's shared secret. When set, a request whose `password` differs is answered 21004, as
    /// Apple does; it is also what a remote fallback sends when a request has none. Never logged.
    public var sharedSecret: String?
    /// The largest request body read, in bytes; larger bodies get HTTP 413.
    public var maximumBodySize: Int
    /// The most requests verified at once; more get HTTP 503 (verifyReceipt status 21005).
    public var maximumInFlight: Int
    /// The longest wait for a request's body once its head arrived; slower clients get HTTP 408.
    public var bodyTimeout: Duration
    /// Connections idle this long (no request, or a request head that never completes) are closed.
    public var idleTimeout: Duration
    /// Where "now" comes from: the answer's `request_date` and `ValidationTime.now`.
    public var clock: @Sendable () -> ReceiptDate
    /// The bearer tokens a backend presents (`Authorization: Bearer <token>`) on the `/v1` routes that read or bind
    /// ledger state on its behalf (``APIAccess``); several during a rotation. Never logged. Empty: those routes are
    /// served only while ``host`` is a loopback address.
    public var apiTokens: [String] = []

    public init(
        host: String = "127.0.0.1", port: Int = 8080, validationTime: ValidationTime = .receiptCreation,
        acceptsAnyEnvironment: Bool = false, sharedSecret: String? = nil, maximumBodySize: Int = 1 << 20,
        maximumInFlight: Int = 256, bodyTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60),
        clock: @escaping @Sendable () -> ReceiptDate = ReceiptDate.systemNow
    ) {
        self.host = host
        self.port = port
        self.validationTime = validationTime
        self.acceptsAnyEnvironment = acceptsAnyEnvironment
        self.sharedSecret = sharedSecret
        self.maximumBodySize = maximumBodySize
        self.maximumInFlight = maximumInFlight
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.clock = clock
    }

    /// The settings, for the startup log; the shared secret shows only as set or not.
    public var description: String {
        "host \(host), port \(port), validation time \(Self.name(validationTime)), "
            + "environments \(acceptsAnyEnvironment ? "any" : "per endpoint"), "
            + "shared secret \(sharedSecret == nil ? "unset" : "set"), max body \(maximumBodySize) bytes, "
            + "max in flight \(maximumInFlight), body timeout \(bodyTimeout), idle timeout \(idleTimeout), "
            + "api tokens \(apiTokens.count)"
    }

    /// The validation time as the command line and `/v1/verify` spell it: `creation`, `now` or an RFC 3339
    /// instant.
    package static func name(_ time: ValidationTime) -> String {
        switch time {
        case .receiptCreation: "creation"
        case .now: "now"
        case .fixed(let instant): instant.description
        }
    }

    /// Reads `creation`, `now` or an RFC 3339 instant; `nil` for anything else.
    package static func validationTime(named text: String) -> ValidationTime? {
        switch text {
        case "creation": .receiptCreation
        case "now": .now
        default: ReceiptDate(rfc3339: text).map { .fixed($0) }
        }
    }
}
