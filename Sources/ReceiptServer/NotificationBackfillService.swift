public import Logging
public import ReceiptIntake
public import ReceiptModel
import ReceiptRemote
import ReceiptVerification
public import ServiceLifecycle

/// The backfill a server with the App Store Server API runs at start: for each configured app and both environments,
/// the notifications Apple sent since the latest one the ledger holds (within Apple's window), applied as if pushed,
/// so that none sent while the server was down is lost. It runs beside the routes, never delays them, and a failure
/// is logged (the next start, or `receipt-server notifications backfill`, picks up from the ledger's latest).
///
/// Each app and environment logs one `info` line (`notifications backfilled`, with its counts) and adds to
/// `receipt_server_backfilled_notifications_total{environment, outcome}`.
public struct NotificationBackfillService: Service {
    public let intake: ReceiptIntake
    public let bundleIDs: [String]
    public let metrics: ServerMetrics
    /// "Now", read once per backfill.
    public let clock: @Sendable () -> ReceiptDate
    public let logger: Logger

    public init(
        intake: ReceiptIntake, bundleIDs: [String], metrics: ServerMetrics,
        clock: @escaping @Sendable () -> ReceiptDate,
        logger: Logger
    ) {
        self.intake = intake
        self.bundleIDs = bundleIDs
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
    }

    public func run() async {
        // A first backfill may walk Apple's whole window: a graceful shutdown cancels it instead of waiting for it.
        await cancelWhenGracefulShutdown { await backfillEach() }
    }

    private func backfillEach() async {
        for bundleID in bundleIDs.sorted() {
            for environment in [ReceiptEnvironment.production, .sandbox] {
                if Task.isCancelled { return }
                let call = BackfillCall(
                    bundleID: bundleID, environment: environment, auditEndpoint: "backfill at start", now: clock())
                do throws(IntakeError) {
                    let report = try await intake.backfillNotifications(call, logger: logger)
                    metrics.recordBackfill(report)
                } catch {
                    metrics.recordBackfillFailure(environment: environment)
                    logger.warning(
                        "notification backfill failed",
                        metadata: [
                            "bundle_id": "\(bundleID)", "environment": "\(environment.rawValue)",
                            "code": "\(error.code)", "reason": "\(error.reason)",
                        ])
                }
            }
        }
    }
}
