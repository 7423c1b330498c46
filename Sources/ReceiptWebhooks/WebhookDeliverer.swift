public import AsyncHTTPClient
import BER
public import Logging
import NIOCore
import NIOHTTP1
public import ReceiptLedger
import ReceiptModel

/// Delivers the ledger's events (its transactional outbox, ``LedgerEvent``) to the operator's backend: claims the
/// events that are due, POSTs each, signed, to the configured URL, and settles each attempt in the ledger.
///
/// It exists beside the verification routes, never in their way: a request records its events in the same commit as
/// its facts and returns; this loop picks them up (within ``WebhookConfiguration/pollInterval``, at once after
/// ``wake()``). Delivery is at least once (a receiver deduplicates on `X-Receipt-Event-Id`) and in commit order per
/// key (the store leases only the first undelivered event of each key).
///
/// Each round is one call to the store, `settleAndClaimEvents(settling:owner:now:leaseUntil:limit:)`: it settles the
/// previous round's attempts and leases up to ``WebhookConfiguration/concurrency`` events for timeout + margin (so a
/// replica that dies leaves its events to others within 30 s); then it POSTs them at once. Per event: 2xx settles it
/// delivered; any other status, a timeout or a connection error settles a retry after the backoff, or parks it as
/// failed once it is older than ``WebhookConfiguration/maxAge``.
///
/// ```swift
/// let deliverer = try WebhookDeliverer(
///     configuration: try WebhookConfiguration(url: "https://backend.example/hooks", secrets: [secret]),
///     store: ledger.store, clock: SystemWebhookClock(wallClock: ReceiptDate.systemNow), logger: logger)
/// try await withTaskCancellationHandler { await deliverer.run() } onCancel: {}
/// ```
public final class WebhookDeliverer: Sendable {
    public let configuration: WebhookConfiguration
    /// This replica's id, the owner of its leases.
    public let owner: String
    private let store: any LedgerStore
    private let signer: WebhookSigner
    private let clock: any WebhookClock
    private let logger: Logger
    private let httpClient: HTTPClient?
    private let jitter: @Sendable () -> Double
    private let observe: @Sendable (WebhookAttempt) -> Void
    private let wakeSignal = WakeSignal()

    /// The largest receiver answer read (and dropped) to keep the connection reusable.
    static let maximumAnswerSize = 64 * 1024

    /// - Parameters:
    ///   - configuration: where and how; checked here (``WebhookConfiguration/validated()``).
    ///   - store: the ledger's store, whose event calls it uses.
    ///   - clock: "now" and the idle sleep.
    ///   - owner: this replica's id; unique per process (``newReplicaID()``).
    ///   - httpClient: the client to POST with, owned by the caller; `nil` makes one for ``run()`` (redirects not
    ///     followed: a 3xx is a failed attempt) and shuts it down when `run()` returns.
    ///   - jitter: draws the backoff's jitter in `[0, 1)`.
    ///   - observe: told how each attempt ended (metrics).
    /// - Throws: ``WebhookError`` for a configuration it cannot run with.
    public init(
        configuration: WebhookConfiguration, store: any LedgerStore, clock: any WebhookClock,
        owner: String = WebhookDeliverer.newReplicaID(), httpClient: HTTPClient? = nil, logger: Logger,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        observe: @escaping @Sendable (WebhookAttempt) -> Void = { _ in }
    ) throws(WebhookError) {
        self.configuration = try configuration.validated()
        self.signer = try WebhookSigner(secrets: configuration.secrets)
        self.store = store
        self.clock = clock
        self.owner = owner
        self.httpClient = httpClient
        self.logger = logger
        self.jitter = jitter
        self.observe = observe
    }

    /// A new replica id: `replica-` and 64 random bits in hex.
    public static func newReplicaID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        return "replica-" + Hex.encode((0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
    }

    /// Cuts the idle wait short: the server calls it after a commit that recorded events.
    public func wake() { wakeSignal.signal() }

    /// Delivers until the task is cancelled. Attempts in flight at cancellation are abandoned unsettled: their leases
    /// run out and they are tried again (the receiver may see them twice, as at-least-once allows); attempts that had
    /// ended are settled before it returns.
    public func run() async {
        let client =
            httpClient
            ?? HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.clientConfiguration)
        logger.info("webhook delivery started", metadata: ["webhook": "\(configuration)", "owner": "\(owner)"])
        var storeFailing = false
        // The last round's attempts, settled with the next round's claim: one write per round.
        var finished: [String: LedgerEventSettlement] = [:]
        while !Task.isCancelled {
            var claimed = 0
            do throws(LedgerError) {
                (claimed, finished) = try await round(settling: finished, client: client)
                if storeFailing {
                    storeFailing = false
                    logger.info("webhook delivery reads the ledger again")
                }
            } catch {
                if Task.isCancelled { break }
                if !storeFailing {
                    storeFailing = true
                    logger.warning(
                        "webhook delivery cannot claim events; retrying each poll",
                        metadata: ["code": "\(error.code)", "reason": "\(error.reason)"])
                }
            }
            // Something was due: more may be (the next event of a key just delivered), so look again at once.
            if claimed == 0 { await idle() }
        }
        if !finished.isEmpty { await settleAfterCancellation(finished) }
        if httpClient == nil { try? await client.shutdown() }
        logger.info("webhook delivery stopped", metadata: ["owner": "\(owner)"])
    }

    /// One round: settles `finished` and claims what is due (up to the concurrency) in one call to the store, then
    /// attempts each claimed event at once.
    /// - Returns: how many events were claimed, and how their attempts ended (for the next round to settle).
    /// - Throws: ``LedgerError`` when the store call fails: nothing was claimed, and `finished` is to be settled again.
    package func round(settling finished: [String: LedgerEventSettlement], client: HTTPClient)
        async throws(LedgerError) -> (claimed: Int, finished: [String: LedgerEventSettlement])
    {
        let now = clock.now()
        let events = try await store.settleAndClaimEvents(
            settling: finished, owner: owner, now: now, leaseUntil: now.adding(configuration.lease),
            limit: configuration.concurrency)
        let settlements = await withTaskGroup(of: (String, LedgerEventSettlement)?.self) { group in
            for event in events {
                group.addTask { await self.deliver(event, client: client).map { (event.id, $0) } }
            }
            var settlements: [String: LedgerEventSettlement] = [:]
            for await case let (id, settlement)? in group { settlements[id] = settlement }
            return settlements
        }
        return (events.count, settlements)
    }

    /// One round settled at once (what ``run()`` leaves to the next round's claim).
    /// - Returns: how many events were claimed.
    package func deliverDue(client: HTTPClient) async throws(LedgerError) -> Int {
        let (claimed, finished) = try await round(settling: [:], client: client)
        if !finished.isEmpty {
            let now = clock.now()
            _ = try await store.settleAndClaimEvents(
                settling: finished, owner: owner, now: now, leaseUntil: now, limit: 0)
        }
        return claimed
    }

    /// Settles the attempts that ended before cancellation, in a task of its own (the cancelled one would cut the
    /// store call short); a failure leaves their leases to run out.
    private func settleAfterCancellation(_ finished: [String: LedgerEventSettlement]) async {
        let (store, owner, now, logger) = (store, owner, clock.now(), logger)
        await Task {
            do throws(LedgerError) {
                _ = try await store.settleAndClaimEvents(
                    settling: finished, owner: owner, now: now, leaseUntil: now, limit: 0)
            } catch {
                logger.warning(
                    "webhook attempts not settled at shutdown; their leases run out and they are tried again",
                    metadata: ["code": "\(error.code)", "reason": "\(error.reason)"])
            }
        }.value
    }

    /// Waits for the poll interval or a ``wake()``, whichever comes first, or for cancellation.
    private func idle() async {
        let clock = clock
        let interval = configuration.pollInterval
        let wakeSignal = wakeSignal
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await clock.sleep(for: interval)
                    wakeSignal.signal()
                } catch {
                    // Cancelled: the wait below already returned.
                }
            }
            await wakeSignal.wait()
            group.cancelAll()
        }
    }

    /// One attempt of one event: how it ended, to be settled; `nil` when cancelled (shutting down: its lease runs out
    /// rather than count an attempt that was cut short).
    private func deliver(_ event: LedgerEvent, client: HTTPClient) async -> LedgerEventSettlement? {
        let (status, failure) = await attempt(event, client: client)
        if Task.isCancelled { return nil }
        let now = clock.now()
        let settlement: LedgerEventSettlement
        let result: WebhookAttempt.Result
        if let status, (200..<300).contains(status) {
            settlement = .delivered(at: now)
            result = .delivered
        } else {
            let error = failure ?? "HTTP \(status ?? 0)"
            if now.isMore(than: configuration.maxAge, after: event.maxAgeFrom) {
                settlement = .failed(at: now, error: error)
                result = .parked
            } else {
                let delay = configuration.backoff.delay(afterAttempts: event.attempts + 1, jitter: jitter())
                settlement = .retry(at: now.adding(delay), error: error)
                result = .retried
            }
        }
        let report = WebhookAttempt(
            eventID: event.id, kind: event.kind, result: result, httpStatus: status, error: settlement.error)
        observe(report)
        log(report, event: event)
        return settlement
    }

    /// POSTs the event, signed now; the receiver's status, or why there was none.
    private func attempt(_ event: LedgerEvent, client: HTTPClient) async -> (status: Int?, failure: String?) {
        let signature: String
        do throws(WebhookError) {
            signature = try signer.signature(body: event.body, at: clock.now())
        } catch {
            return (nil, error.reason)
        }
        var request = HTTPClientRequest(url: configuration.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "receipt-server-webhooks")
        request.headers.add(name: "X-Receipt-Event-Id", value: event.id)
        request.headers.add(name: "X-Receipt-Event-Type", value: event.kind.rawValue)
        request.headers.add(name: WebhookSigner.headerName, value: signature)
        request.body = .bytes(event.body)
        // The whole attempt, reading the answer included, races the timeout on the injected clock: AsyncHTTPClient's
        // deadline stops at the response head, and a receiver trickling its body must not outlast the lease.
        let clock = clock
        let timeout = configuration.timeout
        let prepared = request
        return await withTaskGroup(of: (status: Int?, failure: String?)?.self) { group in
            group.addTask { await Self.post(prepared, client: client, timeout: timeout) }
            group.addTask {
                do {
                    try await clock.sleep(for: timeout)
                    return (nil, "timeout after \(timeout)")
                } catch {
                    return nil  // the attempt ended first
                }
            }
            for await result in group {
                guard let result else { continue }
                group.cancelAll()
                return result
            }
            return (nil, "cancelled")
        }
    }

    /// One POST and its answer, drained (bounded) so the connection can be reused.
    private static func post(_ request: HTTPClientRequest, client: HTTPClient, timeout: Duration) async -> (
        status: Int?, failure: String?
    ) {
        do {
            let response = try await client.execute(
                request, timeout: .milliseconds(WebhookBackoff.milliseconds(timeout)), logger: quietLogger)
            let status = Int(response.status.code)
            // What the receiver says is not needed; a larger answer only costs the connection.
            _ = try? await response.body.collect(upTo: maximumAnswerSize)
            return (status, (200..<300).contains(status) ? nil : "HTTP \(status)")
        } catch {
            return (nil, describe(error, timeout: timeout))
        }
    }

    /// Why an attempt got no answer, in a few words: never the body or a header.
    static func describe(_ error: any Error, timeout: Duration) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout,
                .getConnectionFromPoolTimeout:
                return "timeout after \(timeout)"
            default:
                return "HTTP client: \(error)"
            }
        }
        if error is CancellationError { return "cancelled" }
        return String("connection failed: \(error)".prefix(200))
    }

    private func log(_ attempt: WebhookAttempt, event: LedgerEvent) {
        var metadata: Logger.Metadata = [
            "event_id": "\(event.id)", "type": "\(event.kind.rawValue)", "attempts": "\(event.attempts + 1)",
        ]
        if let error = attempt.error { metadata["error"] = "\(error)" }
        switch attempt.result {
        case .delivered: logger.debug("webhook delivered", metadata: metadata)
        case .retried: logger.info("webhook attempt failed; retrying later", metadata: metadata)
        case .parked: logger.warning("webhook parked as failed after its maximum age", metadata: metadata)
        }
    }

    /// A POST is not replayed to another URL: a 3xx is a failed attempt, as any non-2xx.
    package static var clientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        return configuration
    }

    /// AsyncHTTPClient's own logging stays off: its trace records would carry the signed header.
    static let quietLogger = Logger(label: "receipt-webhooks.http", factory: { _ in SwiftLogNoOpLogHandler() })
}
