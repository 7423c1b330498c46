/// Where events go and how hard the deliverer tries: the receiver's URL, the signing secrets, the per-attempt
/// timeout, how long an event is retried before it is parked, the backoff, the concurrency and the idle poll.
///
/// Plain `http://` is accepted to any host, not only loopback: operators run receivers inside their own network
/// (a sidecar, a service mesh that terminates TLS), and the body is signed either way, so a receiver can tell a
/// forged or altered request; what plain HTTP gives up is confidentiality, which is the operator's call.
public struct WebhookConfiguration: Sendable, CustomStringConvertible {
    /// The receiver: an `http://` or `https://` URL with a host. May carry a path and a query.
    public let url: String
    /// The secrets that sign each request (``WebhookSigner``): one, or two during a rotation. Never logged.
    public let secrets: [String]
    /// The longest one attempt may take, connecting included; then it counts as failed and is retried.
    public var timeout: Duration
    /// How long an event is retried, counted from when it was recorded (or queued again by `webhooks replay`):
    /// an attempt that fails after that parks it as failed.
    public var maxAge: Duration
    /// The wait between attempts of one event.
    public var backoff: WebhookBackoff
    /// The most events in flight at once (and claimed per round).
    public var concurrency: Int
    /// How long the deliverer waits when nothing is due before it looks again (``WebhookDeliverer/wake()`` cuts it
    /// short).
    public var pollInterval: Duration
    /// Added to ``timeout`` to make the lease on claimed events: long enough to settle an attempt that used its
    /// whole timeout.
    public var leaseMargin: Duration

    /// The longest ``timeout``: with the margin, a lease stays within 30 s, so a replica that dies mid-attempt
    /// leaves its events to another replica within 30 s.
    public static let longestTimeout: Duration = .seconds(25)
    /// The longest lease (``timeout`` + ``leaseMargin``).
    public static let longestLease: Duration = .seconds(30)

    /// - Throws: ``WebhookError``: `webhook.invalid_url`, `webhook.invalid_secret` (none, or an empty one).
    public init(
        url: String, secrets: [String], timeout: Duration = .seconds(10), maxAge: Duration = .seconds(86_400),
        backoff: WebhookBackoff = WebhookBackoff(), concurrency: Int = 8, pollInterval: Duration = .seconds(1),
        leaseMargin: Duration = .seconds(5)
    ) throws(WebhookError) {
        guard let origin = Self.origin(of: url) else {
            throw WebhookError(.invalidURL, "the webhook URL must be an http:// or https:// URL with a host")
        }
        guard !secrets.isEmpty, !secrets.contains(where: \.isEmpty) else {
            throw WebhookError(.invalidSecret, "a webhook needs at least one secret, and no empty one")
        }
        self.url = url
        self.origin = origin
        self.secrets = secrets
        self.timeout = timeout
        self.maxAge = maxAge
        self.backoff = backoff
        self.concurrency = concurrency
        self.pollInterval = pollInterval
        self.leaseMargin = leaseMargin
    }

    /// `scheme://host[:port]` of ``url``, for logs (a path or query may carry a token).
    public let origin: String

    /// How long claimed events are leased: ``timeout`` + ``leaseMargin``.
    public var lease: Duration { timeout + leaseMargin }

    /// Checks the settings that may have been changed after `init`.
    /// - Throws: ``WebhookError`` `webhook.invalid_setting`.
    public func validated() throws(WebhookError) -> WebhookConfiguration {
        guard timeout > .zero, timeout <= Self.longestTimeout else {
            throw WebhookError(.invalidSetting, "the webhook timeout must be more than 0 and at most 25 seconds")
        }
        guard leaseMargin > .zero, lease <= Self.longestLease else {
            throw WebhookError(.invalidSetting, "the webhook lease (timeout + margin) must be at most 30 seconds")
        }
        guard maxAge > .zero else { throw WebhookError(.invalidSetting, "the webhook maximum age must be positive") }
        guard backoff.initial > .zero, backoff.maximum >= backoff.initial else {
            throw WebhookError(.invalidSetting, "the webhook backoff must be positive, its maximum at least its start")
        }
        guard concurrency >= 1, concurrency <= 1024 else {
            throw WebhookError(.invalidSetting, "the webhook concurrency must be 1 to 1024")
        }
        guard pollInterval > .zero else {
            throw WebhookError(.invalidSetting, "the webhook poll interval must be positive")
        }
        return self
    }

    /// `scheme://authority` of an http(s) URL with a non-empty host and no whitespace or control characters; `nil`
    /// otherwise. The user-info part, if any, is left out.
    static func origin(of url: String) -> String? {
        guard !url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else { return nil }
        let lowered = url.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let rest = url.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority[...]
        let host = hostAndPort.hasPrefix("[") ? hostAndPort : (hostAndPort.split(separator: ":").first ?? "")
        guard !host.isEmpty else { return nil }
        return "\(scheme)://\(hostAndPort)"
    }

    /// The settings, for the start-up log: the URL's origin only, the secrets only as a count.
    public var description: String {
        "url \(origin), secrets \(secrets.count), timeout \(timeout), max age \(maxAge), backoff \(backoff.initial) to "
            + "\(backoff.maximum), concurrency \(concurrency), poll \(pollInterval), lease \(lease)"
    }
}
