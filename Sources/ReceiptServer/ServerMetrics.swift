import Synchronization
public import ReceiptRemote
public import ReceiptVerification

/// The server's counters and latency histogram, rendered in the Prometheus text exposition format
/// (version 0.0.4) by hand, so no metrics dependency is needed.
///
/// Each request is recorded once, under one lock (`Synchronization.Mutex`), at the end of handling.
public final class ServerMetrics: Sendable {
    /// One finished request, as the metrics see it.
    public struct Record: Sendable {
        /// The route, e.g. `/verifyReceipt`.
        public var endpoint: String
        /// The HTTP status answered.
        public var httpStatus: Int
        /// The verifyReceipt status answered, when the endpoint answers one.
        public var appleStatus: Int?
        /// The outcome answered, when a receipt was verified.
        public var outcome: Verdict.Outcome?
        /// Who decided, when a receipt was verified.
        public var decidedBy: AttributedVerdict.DecidedBy?
        /// The code of a refusal before verification (bad JSON, too large, overloaded, …).
        public var rejection: ServerError.Code?
        /// Apple's status when the fallback asked Apple, or `error` when the call failed.
        public var remoteCall: String?
        /// Time from the request's arrival at the handler to its response.
        public var duration: Duration

        public init(endpoint: String, httpStatus: Int, duration: Duration) {
            self.endpoint = endpoint
            self.httpStatus = httpStatus
            self.duration = duration
        }

        /// Notes what verifying the receipt gave: the outcome, who decided, and Apple's status or the
        /// remote failure's code when Apple was asked.
        public mutating func note(_ result: AttributedVerdict) {
            outcome = result.verdict.outcome
            decidedBy = result.decidedBy
            remoteCall = result.appleResponse.map { String($0.status) } ?? result.remoteError.map { $0.code.description }
        }
    }

    /// Upper bounds of the latency buckets, in seconds.
    public static let bucketBounds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    private struct State {
        var requests: [Pair: Int] = [:]
        var answers: [Pair: Int] = [:]
        var verdicts: [Pair: Int] = [:]
        var rejections: [String: Int] = [:]
        var remoteCalls: [String: Int] = [:]
        var buckets = [Int](repeating: 0, count: ServerMetrics.bucketBounds.count)
        var count = 0
        var sumSeconds = 0.0
    }

    private struct Pair: Hashable {
        let first: String
        let second: String
    }

    private let state = Mutex(State())

    public init() {}

    /// Adds one finished request.
    public func record(_ record: Record) {
        let seconds = Double(record.duration.components.seconds)
            + Double(record.duration.components.attoseconds) / 1e18
        let bucket = Self.bucketBounds.firstIndex { seconds <= $0 }
        state.withLock { state in
            state.requests[Pair(first: record.endpoint, second: String(record.httpStatus)), default: 0] += 1
            if let status = record.appleStatus {
                state.answers[Pair(first: record.endpoint, second: String(status)), default: 0] += 1
            }
            if let outcome = record.outcome {
                let decidedBy = record.decidedBy?.rawValue ?? "local"
                state.verdicts[Pair(first: outcome.rawValue, second: decidedBy), default: 0] += 1
            }
            if let rejection = record.rejection { state.rejections[rejection.description, default: 0] += 1 }
            if let remote = record.remoteCall { state.remoteCalls[remote, default: 0] += 1 }
            if let bucket { state.buckets[bucket] += 1 }
            state.count += 1
            state.sumSeconds += seconds
        }
    }

    /// The exposition text.
    /// - Parameters:
    ///   - cache: the verifier's chain-cache counters.
    ///   - inFlight: requests being verified now.
    public func render(cache: ChainCacheStatistics, inFlight: Int) -> String {
        let snapshot = state.withLock { $0 }
        var out = ""
        func header(_ name: String, _ type: String, _ help: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        func pairs(_ values: [Pair: Int], _ name: String, _ first: String, _ second: String) {
            for (key, value) in values.sorted(by: { ($0.key.first, $0.key.second) < ($1.key.first, $1.key.second) }) {
                out += "\(name){\(first)=\"\(key.first)\",\(second)=\"\(key.second)\"} \(value)\n"
            }
        }
        func singles(_ values: [String: Int], _ name: String, _ label: String) {
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                out += "\(name){\(label)=\"\(key)\"} \(value)\n"
            }
        }

        header("receipt_server_requests_total", "counter", "HTTP requests answered, by route and HTTP status.")
        pairs(snapshot.requests, "receipt_server_requests_total", "endpoint", "code")
        header(
            "receipt_server_verify_receipt_status_total", "counter",
            "verifyReceipt statuses answered, by route and status.")
        pairs(snapshot.answers, "receipt_server_verify_receipt_status_total", "endpoint", "status")
        header("receipt_server_verdicts_total", "counter", "Receipts verified, by outcome and by who decided.")
        pairs(snapshot.verdicts, "receipt_server_verdicts_total", "outcome", "decided_by")
        header("receipt_server_rejections_total", "counter", "Requests refused before verification, by reason.")
        singles(snapshot.rejections, "receipt_server_rejections_total", "reason")
        header("receipt_server_remote_calls_total", "counter", "Calls to Apple's verifyReceipt, by Apple's status.")
        singles(snapshot.remoteCalls, "receipt_server_remote_calls_total", "status")

        header(
            "receipt_server_request_duration_seconds", "histogram",
            "Time from handler entry to response, receipt routes only.")
        var cumulative = 0
        for (index, bound) in Self.bucketBounds.enumerated() {
            cumulative += snapshot.buckets[index]
            out += "receipt_server_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "receipt_server_request_duration_seconds_bucket{le=\"+Inf\"} \(snapshot.count)\n"
        out += "receipt_server_request_duration_seconds_sum \(snapshot.sumSeconds)\n"
        out += "receipt_server_request_duration_seconds_count \(snapshot.count)\n"

        header("receipt_server_chain_cache_hits_total", "counter", "Verified-chain cache hits.")
        out += "receipt_server_chain_cache_hits_total \(cache.hits)\n"
        header("receipt_server_chain_cache_misses_total", "counter", "Verified-chain cache misses (path validated).")
        out += "receipt_server_chain_cache_misses_total \(cache.misses)\n"
        header("receipt_server_chain_cache_entries", "gauge", "Verified chains stored.")
        out += "receipt_server_chain_cache_entries \(cache.entries)\n"
        header("receipt_server_in_flight", "gauge", "Requests being verified now.")
        out += "receipt_server_in_flight \(inFlight)\n"
        return out
    }
}
