public import Hummingbird
public import Logging
import NIOCore
public import ReceiptIntake
public import ReceiptLedger
public import ReceiptRemote
import ReceiptVerification
public import ReceiptWebhooks
import ServiceLifecycle
import UnixSignals

/// The runnable server: the routes on a Hummingbird 2 HTTP/1.1 application, run in a ServiceGroup
/// that shuts down gracefully on SIGTERM and SIGINT (in-flight requests finish, idle connections close).
///
/// ```swift
/// let verifier = ReceiptVerifier()
/// let service = ReceiptService(configuration: .init(), decider: FallbackVerifier(verifier: verifier), logger: logger)
/// try await service.run()
/// ```
public struct ReceiptService: Sendable {
    public let routes: ReceiptRoutes
    /// The application's logger. Hummingbird derives each request's `context.logger` from it, adding the
    /// request's id (`hb.request.id`); the routes log only through that.
    public let logger: Logger

    /// Whether the server backfills missed notifications at start (``NotificationBackfillService``): on when the App
    /// Store Server API and the ledger are both configured.
    public let backfillsAtStart: Bool

    /// Delivers the ledger's events to the operator's backend (``WebhookDeliveryService``): present when a webhook is
    /// configured and the server has a ledger, which wakes it (``WebhookDeliverer/wake()``) after each commit that wrote
    /// events.
    public let webhooks: WebhookDeliverer?

    /// - Parameters:
    ///   - webhooks: where the ledger's events go; `nil` (or no `ledger`) delivers none. The ledger's store should
    ///     record events (``LedgerStoreOptions/recordsEvents``) while it is set.
    /// - Throws: ``WebhookError`` for a webhook configuration the deliverer cannot run with.
    public init(
        configuration: ReceiptServerConfiguration, decider: any ReceiptDecider, ledger: Ledger? = nil,
        serverAPI: AppStoreServerAPIClient? = nil, backfillsAtStart: Bool = true,
        webhooks: WebhookConfiguration?, logger: Logger
    ) throws(WebhookError) {
        routes = ReceiptRoutes(configuration: configuration, decider: decider, ledger: ledger, serverAPI: serverAPI)
        self.backfillsAtStart = backfillsAtStart && serverAPI != nil && ledger != nil
        self.logger = logger
        guard let webhooks, let store = ledger?.store else {
            self.webhooks = nil
            return
        }
        let metrics = routes.metrics
        let clock = configuration.clock
        let deliverer = try WebhookDeliverer(
            configuration: webhooks, store: store, clock: SystemWebhookClock(wallClock: clock), logger: logger,
            observe: { metrics.recordWebhookAttempt($0) })
        self.webhooks = deliverer
        // A commit that wrote events starts a delivery round at once, not at the next poll.
        ledger?.whenEventsRecorded { deliverer.wake() }
        metrics.observeWebhookQueue {
            // A store that cannot answer leaves the gauges where they were; the deliverer logs the outage.
            guard let pending = try? await store.pendingEvents() else { return nil }
            return (pending.count, pending.oldest, clock())
        }
    }

    /// The server without webhooks (its initializer cannot fail).
    public init(
        configuration: ReceiptServerConfiguration, decider: any ReceiptDecider, ledger: Ledger? = nil,
        serverAPI: AppStoreServerAPIClient? = nil, backfillsAtStart: Bool = true, logger: Logger
    ) {
        routes = ReceiptRoutes(configuration: configuration, decider: decider, ledger: ledger, serverAPI: serverAPI)
        self.backfillsAtStart = backfillsAtStart && serverAPI != nil && ledger != nil
        self.logger = logger
        self.webhooks = nil
    }

    public var configuration: ReceiptServerConfiguration { routes.configuration }

    /// The Hummingbird application, to run as a `Service` (or to drive with HummingbirdTesting).
    /// - Parameter onServerRunning: called with the bound port once listening (useful with port 0).
    public func makeApplication(
        onServerRunning: @escaping @Sendable (_ port: Int?) async -> Void = { _ in }
    ) -> Application<RouterResponder<BasicRequestContext>> {
        let configuration = routes.configuration
        let bodyReader = routes.bodyReader
        return Application(
            router: routes.makeRouter(),
            server: .http1(
                configuration: .init(
                    // An autoclosure Hummingbird runs for each connection: a handler of its own for each.
                    additionalChannelHandlers: bodyReader.deadlineHandler().map { [$0] } ?? [],
                    idleTimeout: TimeAmount(configuration.idleTimeout))),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "receipt-server"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port) },
            logger: logger)
    }

    /// Runs until SIGTERM or SIGINT, then finishes in-flight requests and returns.
    public func run() async throws {
        let logger = logger
        let host = configuration.host
        let access = routes.ledger == nil ? "no ledger" : routes.access.summary
        let application = makeApplication { port in
            logger.info(
                "listening",
                metadata: ["host": "\(host)", "port": "\(port.map(String.init) ?? "?")", "backend_routes": "\(access)"])
        }
        var services = [ServiceGroupConfiguration.ServiceConfiguration(service: application)]
        if backfillsAtStart {
            // Where to start is read before the routes listen: a notification pushed once they do must not hide
            // the ones sent while the server was down.
            let backfill = await NotificationBackfillService(
                intake: routes.intake, bundleIDs: Array(routes.decider.policy.acceptedBundleIDs ?? []),
                metrics: routes.metrics, clock: configuration.clock, logger: logger
            ).readingStartingPoints()
            // Done (or failed) is not a reason to stop serving.
            services.append(
                .init(service: backfill, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore))
        }
        if let webhooks {
            // Delivery failing is not a reason to stop serving either: events wait in the ledger.
            services.append(
                .init(
                    service: WebhookDeliveryService(deliverer: webhooks), successTerminationBehavior: .ignore,
                    failureTerminationBehavior: .ignore))
        }
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
