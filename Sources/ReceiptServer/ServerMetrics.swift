import Metrics
public import Prometheus
package import ReceiptIntake
import ReceiptLedger
package import ReceiptModel
package import ReceiptRemote
package import ReceiptVerification
package import ReceiptWebhooks
import Synchronization

/// The server's metrics: recorded through swift-metrics into a Prometheus registry that this value owns, and
/// rendered from that registry by `GET /metrics`.
///
/// The registry belongs to one server instead of being bootstrapped into `MetricsSystem`, so two servers
/// in one process (the tests run many) never add to each other's counters, and an application that
/// embeds the routes can render ``registry`` beside its own metrics.
///
/// Two places record: ``RouteObserverMiddleware`` counts every request of the receipt routes (route,
/// HTTP status, time, refusal), and the routes' answer step counts what was answered (verifyReceipt
/// status, verdict, call to Apple). The caches' counters and the gauges are read when the metrics are
/// rendered.
public final class ServerMetrics: Sendable {
    /// Where every metric of this server lives; `GET /metrics` writes it out.
    public let registry: PrometheusCollectorRegistry

    private let factory: PrometheusMetricsFactory
    /// swift-metrics handles by series, so recording is one dictionary lookup, not a registry lookup
    /// that validates the labels and allocates a new handle each time.
    private let counters = Mutex<[Series: CoreMetrics.Counter]>([:])
    private let duration: CoreMetrics.Timer
    /// The verifier's chain cache.
    private let chainCache: CacheMetrics
    /// The `in_app` entries kept across answers (``RenderedPurchasesCache``), and the bytes they keep.
    private let renderingCache: CacheMetrics
    private let renderingBytes: CoreMetrics.Gauge
    private let inFlight: CoreMetrics.Gauge
    /// The webhook queue's gauges and where they are read from, once the server delivers webhooks.
    private let webhookQueue = Mutex<WebhookQueueGauges?>(nil)

    /// Reads the outbox at render time: its pending count and the oldest pending event's creation.
    package typealias WebhookQueueReader = @Sendable () async -> (count: Int, oldest: ReceiptDate?, now: ReceiptDate)?

    private struct WebhookQueueGauges: Sendable {
        let read: WebhookQueueReader
        let depth: CoreMetrics.Gauge
        let oldestAge: CoreMetrics.Gauge
    }

    /// A cache's hits and misses (counters advanced to the cache's own totals at each rendering) and its entries.
    private final class CacheMetrics: Sendable {
        let hits: CoreMetrics.Counter
        let misses: CoreMetrics.Counter
        let entries: CoreMetrics.Gauge
        /// The cache's totals as last rendered: its counts are totals, the metrics' are increments.
        let seen = Mutex<(hits: Int, misses: Int)>((0, 0))

        init(_ prefix: String, factory: PrometheusMetricsFactory) {
            hits = CoreMetrics.Counter(label: "\(prefix)_hits_total", dimensions: [], factory: factory)
            misses = CoreMetrics.Counter(label: "\(prefix)_misses_total", dimensions: [], factory: factory)
            entries = CoreMetrics.Gauge(label: "\(prefix)_entries", dimensions: [], factory: factory)
        }

        func advance(hits totalHits: Int, misses totalMisses: Int, entries: Int) {
            let (hits, misses) = seen.withLock { seen in
                // The cache only counts up; a total below the last one seen adds nothing.
                let increments = (max(0, totalHits - seen.hits), max(0, totalMisses - seen.misses))
                seen = (max(seen.hits, totalHits), max(seen.misses, totalMisses))
                return increments
            }
            if hits > 0 { self.hits.increment(by: hits) }
            if misses > 0 { self.misses.increment(by: misses) }
            self.entries.record(entries)
        }
    }

    /// A labelled counter: its name and its label names, in the order they are written.
    struct Family: Sendable {
        let name: String
        let labels: [String]
    }

    /// One labelled series: its family and up to two label values. Fixed fields, not arrays, so building
    /// the key to look a counter up allocates nothing (the label values are the route, which the router
    /// already holds, and short codes, which Swift keeps inline).
    private struct Series: Hashable {
        let name: String
        let first: String
        let second: String?
    }

    /// HTTP requests answered by the receipt routes, by route and HTTP status.
    static let requests = Family(name: "receipt_server_requests_total", labels: ["endpoint", "code"])
    /// verifyReceipt statuses answered, by route and status (refusals of the verifyReceipt routes included).
    static let statuses = Family(name: "receipt_server_verify_receipt_status_total", labels: ["endpoint", "status"])
    /// Receipts verified, by outcome and by who decided.
    static let verdicts = Family(name: "receipt_server_verdicts_total", labels: ["outcome", "decided_by"])
    /// Requests refused before verification, by the refusal's code.
    static let rejections = Family(name: "receipt_server_rejections_total", labels: ["reason"])
    /// Calls to Apple's verifyReceipt, by Apple's status or the failure's code.
    static let remoteCalls = Family(name: "receipt_server_remote_calls_total", labels: ["status"])
    /// Notifications the start-up backfill fetched, by environment and outcome (`applied`, `duplicate`, `failed`), and
    /// backfills that stopped (`outcome="backfill_failed"`).
    static let backfilled = Family(
        name: "receipt_server_backfilled_notifications_total", labels: ["environment", "outcome"])
    /// Webhook delivery attempts, by event type and what came of them (`delivered`, `retried`, `parked`).
    static let webhookAttempts = Family(name: "receipt_server_webhook_attempts_total", labels: ["type", "result"])
    /// Time from the route observer's entry to the response, receipt routes only.
    static let durationName = "receipt_server_request_duration_seconds"

    /// Upper bounds of the latency histogram's buckets.
    package static let bucketBounds: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Self.durationName] = Self.bucketBounds
        self.factory = factory
        // The unlabelled metrics exist from the start, so a scrape shows them at zero.
        duration = CoreMetrics.Timer(label: Self.durationName, dimensions: [], factory: factory)
        chainCache = CacheMetrics("receipt_server_chain_cache", factory: factory)
        renderingCache = CacheMetrics("receipt_server_rendered_receipts", factory: factory)
        renderingBytes = CoreMetrics.Gauge(
            label: "receipt_server_rendered_receipts_bytes", dimensions: [], factory: factory)
        inFlight = CoreMetrics.Gauge(label: "receipt_server_in_flight", dimensions: [], factory: factory)
    }

    /// Counts one request of the receipt routes, answered or refused.
    /// - Parameters:
    ///   - route: the route's path, e.g. `/verifyReceipt`.
    ///   - httpStatus: the HTTP status sent.
    ///   - duration: how long the request took.
    ///   - refusal: what refused the request before verification, if anything did.
    func recordRequest(route: String, httpStatus: Int, duration: Duration, refusal: (any RouteRefusal)?) {
        if let refusal {
            let status = refusal.verifyReceiptStatus.map { (Self.statuses, route, String($0)) }
            increment(
                (Self.requests, route, String(httpStatus)), (Self.rejections, refusal.code.description, nil), status)
        } else {
            increment((Self.requests, route, String(httpStatus)))
        }
        self.duration.record(duration: duration)
    }

    /// Counts what a request was answered after its receipt was looked at: its verifyReceipt status and,
    /// when a verification ran, the verdict and the call to Apple it made.
    func recordAnswer(route: String, status: Int, result: AttributedVerdict?) {
        guard let result else {
            increment((Self.statuses, route, String(status)))
            return
        }
        let remote: String? = result.appleResponse.map { String($0.status) } ?? result.remoteError?.code.description
        increment(
            (Self.statuses, route, String(status)),
            (Self.verdicts, result.verdict.outcome.rawValue, result.decidedBy.rawValue),
            remote.map { (Self.remoteCalls, $0, nil) })
    }

    /// Counts what one backfill did.
    package func recordBackfill(_ report: BackfillReport) {
        let environment = report.environment.rawValue
        for (outcome, count) in [
            ("applied", report.applied.count), ("duplicate", report.duplicates), ("failed", report.failed.count),
        ] {
            let found = counters.withLock { counter((Self.backfilled, environment, outcome), in: &$0) }
            // Every outcome's series exists once a backfill ran, so a scrape shows zeros rather than nothing.
            found.increment(by: Int64(count))
        }
    }

    /// Counts a backfill that stopped before its end.
    package func recordBackfillFailure(environment: ReceiptEnvironment) {
        increment((Self.backfilled, environment.rawValue, "backfill_failed"))
    }

    /// Counts one webhook delivery attempt.
    package func recordWebhookAttempt(_ attempt: WebhookAttempt) {
        increment((Self.webhookAttempts, attempt.kind.rawValue, attempt.result.rawValue))
    }

    /// Adds `receipt_server_webhook_queue_depth` and `receipt_server_webhook_oldest_pending_age_seconds`, read with
    /// `read` each time the metrics are rendered (``refreshWebhookQueue()``). A read that fails (`nil`) leaves both
    /// at their last value.
    package func observeWebhookQueue(_ read: @escaping WebhookQueueReader) {
        let gauges = WebhookQueueGauges(
            read: read,
            depth: CoreMetrics.Gauge(label: "receipt_server_webhook_queue_depth", dimensions: [], factory: factory),
            oldestAge: CoreMetrics.Gauge(
                label: "receipt_server_webhook_oldest_pending_age_seconds", dimensions: [], factory: factory))
        webhookQueue.withLock { $0 = gauges }
    }

    /// Brings the webhook queue's gauges up to date, when the server delivers webhooks: the pending events and the
    /// age of the oldest (0 when none is pending).
    package func refreshWebhookQueue() async {
        guard let gauges = webhookQueue.withLock({ $0 }), let queue = await gauges.read() else { return }
        gauges.depth.record(queue.count)
        let age = queue.oldest.map {
            Double(max(0, queue.now.millisecondsSince1970 - $0.millisecondsSince1970)) / 1000
        }
        gauges.oldestAge.record(age ?? 0)
    }

    /// The exposition text (Prometheus text format 0.0.4), after bringing the caches' counters and the gauges up
    /// to date.
    /// - Parameters:
    ///   - cache: the verifier's chain-cache counters.
    ///   - renderings: the counters of the `in_app` entries kept across answers.
    ///   - inFlight: requests being verified now.
    package func exposition(
        cache: ChainCacheStatistics, renderings: RenderedPurchasesCache.Statistics, inFlight: Int
    ) -> [UInt8] {
        chainCache.advance(hits: cache.hits, misses: cache.misses, entries: cache.entries)
        renderingCache.advance(hits: renderings.hits, misses: renderings.misses, entries: renderings.entries)
        renderingBytes.record(renderings.bytes)
        self.inFlight.record(inFlight)
        return registry.emitToBuffer()
    }

    /// A series to count: its family and one or two label values, in the family's label order.
    private typealias Increment = (family: Family, first: String, second: String?)

    /// Counts one in each series given; `nil`s are skipped. Every counter is found (or made, the first time)
    /// under one lock acquisition, then incremented outside it: the counters themselves are atomic.
    private func increment(_ first: Increment, _ second: Increment? = nil, _ third: Increment? = nil) {
        let found = counters.withLock { counters in
            (
                counter(first, in: &counters), second.map { counter($0, in: &counters) },
                third.map { counter($0, in: &counters) }
            )
        }
        found.0.increment()
        found.1?.increment()
        found.2?.increment()
    }

    private func counter(_ series: Increment, in counters: inout [Series: CoreMetrics.Counter]) -> CoreMetrics.Counter {
        let key = Series(name: series.family.name, first: series.first, second: series.second)
        if let counter = counters[key] { return counter }
        let values = [series.first] + (series.second.map { [$0] } ?? [])
        let counter = CoreMetrics.Counter(
            label: series.family.name, dimensions: Array(zip(series.family.labels, values)), factory: factory)
        counters[key] = counter
        return counter
    }
}
