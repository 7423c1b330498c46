public import Logging
public import ReceiptIntake
import ReceiptLedger
public import ReceiptModel
import ReceiptRemote
public import ReceiptVerification
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
    /// Where each app's backfill starts, by environment, as the ledger said before the server accepted any
    /// notification (``readingStartingPoints()``); `nil`, or an app or environment it lacks, reads the ledger's
    /// latest when that backfill begins.
    public var startingPoints: [String: [ReceiptEnvironment: ReceiptDate]]?

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

    /// This service with its ``startingPoints`` read from the ledger now. Call it before the routes accept
    /// notifications: a notification pushed after the start (Apple sends new ones, and retries, as soon as the
    /// server answers) would otherwise move the ledger's latest past everything sent while the server was down, and
    /// those would never be backfilled. The same holds for the second environment, read only after the first one's
    /// walk. A ledger that holds none starts at Apple's window; one that cannot be read is left to read later.
    public func readingStartingPoints() async -> NotificationBackfillService {
        guard let ledger = intake.ledger else { return self }
        var points: [String: [ReceiptEnvironment: ReceiptDate]] = [:]
        for bundleID in bundleIDs {
            for environment in [ReceiptEnvironment.production, .sandbox] {
                do {
                    let latest = try await ledger.latestNotificationSignedDate(
                        bundleID: bundleID, environment: environment)
                    // The epoch is before any window: the intake bounds it to Apple's.
                    points[bundleID, default: [:]][environment] =
                        latest ?? ReceiptDate(clampingMillisecondsSince1970: 0)
                } catch {
                    logger.warning(
                        "ledger unreadable; the backfill reads where to start later",
                        metadata: ["bundle_id": "\(bundleID)", "environment": "\(environment.rawValue)"])
                }
            }
        }
        var copy = self
        copy.startingPoints = points
        return copy
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
                    bundleID: bundleID, environment: environment, since: startingPoints?[bundleID]?[environment],
                    auditEndpoint: "backfill at start", now: clock())
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
