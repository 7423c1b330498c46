import Foundation
import Logging
import NIOCore
import NIOPosix
import ReceiptIntake
import ReceiptLedger
import ReceiptLedgerStores
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import Synchronization
import TestSupport
import Testing

/// The intake's receipt path runs on its caller's executor (`nonisolated(nonsending)`): on the server, the event loop
/// that runs the request's task, with no job queued for each of its own steps.
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

    /// Notes, each time something runs, whether it ran on `loop`; shared by the copies of what notes.
    final class Notes: Sendable {
        let loop: any EventLoop
        private let onLoop = Mutex<[String: [Bool]]>([:])

        init(_ loop: any EventLoop) { self.loop = loop }

        func note(_ what: String) {
            let here = loop.inEventLoop
            onLoop.withLock { $0[what, default: []].append(here) }
        }

        subscript(what: String) -> [Bool] { onLoop.withLock { $0[what] ?? [] } }
    }

    /// The real fallback, its local half a synchronous witness (which runs where the intake runs it), noting where.
    final class NotingDecider: ReceiptDecider {
        let inner: FallbackVerifier
        let notes: Notes

        init(_ inner: FallbackVerifier, _ notes: Notes) {
            self.inner = inner
            self.notes = notes
        }

        func verifyLocally(_ receiptData: ArraySlice<UInt8>, request: FallbackRequest) -> LocalVerification {
            notes.note("verification")
            return inner.verifyLocally(receiptData, request: request)
        }

        func askApple(_ local: LocalVerification, request: FallbackRequest) async -> AttributedVerdict {
            await inner.askApple(local, request: request)
        }

        var cacheStatistics: ChainCacheStatistics { inner.cacheStatistics }
        var policy: ReceiptPolicy { inner.policy }
        var jwsVerifier: ReceiptVerifier { inner.verifier }
    }

    /// Notes where each line is logged.
    struct NotingLogHandler: LogHandler {
        let notes: Notes
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { notes.note("log") }
    }

    /// A `/v1/verify` call of the minted fixture, at a fixed instant.
    static func call() throws -> ReceiptCall {
        let now = try #require(ReceiptDate(rfc3339: "2026-01-01T00:00:00Z"))
        return ReceiptCall(
            receiptData: try ServerTestSupport.fixture("valid-sha256.receipt")[...], request: FallbackRequest(now: now),
            contract: .verdict, auditEndpoint: "/v1/verify", now: now)
    }

    /// Runs `body` with an event loop of its own, shut down afterwards whatever `body` does.
    static func withLoop(_ body: (any EventLoop) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await body(group.next())
        } catch {
            try await group.shutdownGracefully()
            throw error
        }
        try await group.shutdownGracefully()
    }

    /// The verification (in the intake's slot) and the ledger's commit, told of the events it recorded as it returns,
    /// run on the caller's event loop.
    @Test func theVerificationAndTheCommitRunOnTheCallersEventLoop() async throws {
        let folder = try TemporaryFolder()
        let call = try Self.call()
        let verifier = try ServerTestSupport.verifier()
        let store = try SQLiteLedgerStore(
            path: folder.url.appendingPathComponent("ledger.sqlite").path,
            options: LedgerStoreOptions(recordsEvents: true))
        try await Self.withLoop { loop in
            let notes = Notes(loop)
            let ledger = Ledger(store: store)
            ledger.whenEventsRecorded { notes.note("commit") }
            let intake = ReceiptIntake(
                decider: NotingDecider(FallbackVerifier(verifier: verifier), notes), ledger: ledger,
                rules: IntakeRules(), maximumInFlight: 4)

            let error = await OnLoop(loop).verify(intake, call, logger: Logger(label: "intake"))

            #expect(error == nil)
            #expect(notes["verification"] == [true])
            #expect(notes["commit"] == [true])
        }
        await store.close()
    }

    /// With a store that fails, the intake logs the failed write from its own recording step: on the caller's loop.
    @Test func aFailedWriteIsLoggedOnTheCallersEventLoop() async throws {
        let call = try Self.call()
        let verifier = try ServerTestSupport.verifier()
        try await Self.withLoop { loop in
            let notes = Notes(loop)
            let intake = ReceiptIntake(
                decider: FallbackVerifier(verifier: verifier),
                ledger: Ledger(store: LedgerRouteTests.FailingLedgerStore()), rules: IntakeRules(), maximumInFlight: 4)

            let error = await OnLoop(loop).verify(
                intake, call, logger: Logger(label: "intake") { _ in NotingLogHandler(notes: notes) })

            #expect(error?.code == .ledgerUnavailable)
            #expect(notes["log"] == [true])
        }
    }
}
