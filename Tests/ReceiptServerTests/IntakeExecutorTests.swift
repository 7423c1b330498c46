import Logging
import NIOCore
import NIOPosix
import ReceiptIntake
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import Synchronization
import Testing

/// The intake's receipt path runs on its caller's executor (`nonisolated(nonsending)`): on the server, the event loop
/// that runs the request's task, with no job queued for each step.
@Suite("the intake runs where its caller runs", .timeLimit(.minutes(1)))
struct IntakeExecutorTests {
    /// An actor whose jobs run on one event loop, so that code it runs can tell by `inEventLoop`.
    actor OnLoop {
        let loop: any EventLoop
        nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

        init(_ loop: any EventLoop) { self.loop = loop }

        func verify(_ intake: ReceiptIntake, _ call: ReceiptCall, logger: Logger) async -> IntakeError? {
            do {
                _ = try await intake.verify(call, logger: logger)
                return nil
            } catch {
                return error
            }
        }
    }

    /// Notes, for each line logged, whether it was written on `loop`.
    struct LoopNotingHandler: LogHandler {
        /// What the handler's copies note.
        final class Lines: Sendable {
            let onLoop = Mutex<[Bool]>([])
        }

        let loop: any EventLoop
        let lines: Lines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let here = loop.inEventLoop
            lines.onLoop.withLock { $0.append(here) }
        }
    }

    /// With a store that fails, the intake logs the failed write from its own recording step, which the verification
    /// awaits: on the caller's event loop, not on a thread of the global executor.
    @Test func aFailedWriteIsLoggedOnTheCallersEventLoop() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let lines = LoopNotingHandler.Lines()
        let logger = Logger(label: "intake") { _ in LoopNotingHandler(loop: loop, lines: lines) }
        let intake = ReceiptIntake(
            decider: FallbackVerifier(verifier: try ServerTestSupport.verifier()),
            ledger: Ledger(store: LedgerRouteTests.FailingLedgerStore()), rules: IntakeRules(), maximumInFlight: 4)
        let now = try #require(ReceiptDate(rfc3339: "2026-01-01T00:00:00Z"))
        let call = ReceiptCall(
            receiptData: try ServerTestSupport.fixture("valid-sha256.receipt")[...], request: FallbackRequest(now: now),
            contract: .verifyReceipt(.production), auditEndpoint: "/verifyReceipt", now: now)

        let error = await OnLoop(loop).verify(intake, call, logger: logger)
        try await group.shutdownGracefully()

        #expect(error?.code == .ledgerUnavailable)
        #expect(lines.onLoop.withLock { $0 } == [true])
    }
}
