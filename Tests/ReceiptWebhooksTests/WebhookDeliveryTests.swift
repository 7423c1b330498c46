import AsyncHTTPClient
import Logging
import ReceiptLedger
import ReceiptModel
import ReceiptWebhooks
import Synchronization
import Testing

/// The deliverer against a real loopback receiver, over the in-memory outbox: retries, a receiver that is down, a
/// slow one, the maximum age, rotation and the wake-up. A receiver that is down, a slow one and the maximum age run
/// against the SQLite and PostgreSQL outboxes too (``EventStoreUnderTest``). Backoffs are short through configuration;
/// the attempt timeout is long (20 s) unless a test needs a short one, so a stall shorter than that cannot add an
/// attempt. No assertion is about how long anything took.
@Suite("webhook delivery", .serialized, .timeLimit(.minutes(2)))
struct WebhookDeliveryTests {
    static let secret = "whsec_delivery_test"

    static var quietLogger: Logger {
        var logger = Logger(label: "webhook-test")
        logger.logLevel = .critical
        return logger
    }

    static func event(_ name: String, key: String, clock: TestWebhookClock) -> LedgerEvent {
        LedgerEvent(
            id: LedgerEvent.newID(at: clock.now()), kind: .purchaseNew, key: key, createdAt: clock.now(),
            body: Array(#"{"type":"purchase.new","name":"\#(name)","key":"\#(key)"}"#.utf8))
    }

    static func configuration(
        port: Int, secrets: [String] = [secret], timeout: Duration = .seconds(20), maxAge: Duration = .seconds(3600),
        pollInterval: Duration = .milliseconds(20)
    ) throws -> WebhookConfiguration {
        try WebhookConfiguration(
            url: "http://127.0.0.1:\(port)/hooks", secrets: secrets, timeout: timeout, maxAge: maxAge,
            backoff: WebhookBackoff(initial: .milliseconds(20), maximum: .milliseconds(100)), concurrency: 4,
            pollInterval: pollInterval, leaseMargin: .seconds(1))
    }

    /// Collects what the deliverer reports.
    final class Attempts: Sendable {
        private let seen = Mutex<[WebhookAttempt]>([])
        var all: [WebhookAttempt] { seen.withLock { $0 } }
        func record(_ attempt: WebhookAttempt) { seen.withLock { $0.append(attempt) } }
    }

    /// Polls `condition` until it holds (true) or a generous bound passes (false): a wait, not a timing assertion.
    static func eventually(_ condition: () async throws -> Bool) async rethrows -> Bool {
        for _ in 0..<1_500 {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    /// Runs `deliverer.run()` for the duration of `body`.
    static func running<T>(_ deliverer: WebhookDeliverer, _ body: () async throws -> T) async rethrows -> T {
        let task = Task { await deliverer.run() }
        defer { task.cancel() }
        let value = try await body()
        task.cancel()
        await task.value
        return value
    }

    static func withClient<T>(_ body: (HTTPClient) async throws -> T) async throws -> T {
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: WebhookDeliverer.clientConfiguration)
        do {
            let value = try await body(client)
            try await client.shutdown()
            return value
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    @Test(.enabled(if: IndependentHMAC.available))
    func aFailingReceiverGetsTheEventAgainUntilItAnswers2xx() async throws {
        let receiver = WebhookReceiver { index in (index < 2 ? 500 : 200, .zero) }
        let port = try await receiver.start()
        let clock = TestWebhookClock()
        let store = InMemoryEventStore()
        let event = Self.event("one", key: "account:a", clock: clock)
        store.add([event])
        let attempts = Attempts()
        let deliverer = try WebhookDeliverer(
            configuration: Self.configuration(port: port), store: store, clock: clock, logger: Self.quietLogger,
            observe: attempts.record)

        let delivered = await Self.running(deliverer) {
            await Self.eventually { store.event(event.id)?.state == .delivered }
        }
        await receiver.stop()

        #expect(delivered)
        #expect(store.event(event.id)?.attempts == 3)
        #expect(attempts.all.map(\.result) == [.retried, .retried, .delivered])
        #expect(attempts.all.map(\.httpStatus) == [500, 500, 200])
        let requests = receiver.requests
        #expect(requests.count == 3)
        for request in requests {
            #expect(request.eventID == event.id)
            #expect(request.eventType == "purchase.new")
            #expect(request.contentType == "application/json")
            #expect(request.body == event.body)
            #expect(try IndependentHMAC.verifies(request.signature ?? "", body: request.body, secrets: [Self.secret]))
        }
    }

    @Test(arguments: EventStoreUnderTest.Kind.allCases)
    func aReceiverThatWasDownGetsEverythingInOrderPerKey(kind: EventStoreUnderTest.Kind) async throws {
        guard kind.isAvailable else { return }
        // A port nothing listens on yet: taken, then released.
        let receiver = WebhookReceiver()
        let port = try await receiver.start()
        await receiver.stop()

        let clock = TestWebhookClock()
        let outbox = try await EventStoreUnderTest.open(kind)
        let events = try await outbox.commit(
            [
                ("a1", "account:a"), ("a2", "account:a"), ("b1", "original:b"), ("a3", "account:a"),
                ("b2", "original:b"), ("c1", "account:c"),
            ], at: clock.now())
        try #require(events.count == 6)
        // A short timeout: an attempt on a closed port lasts until it (the client keeps trying to connect), and a
        // stall can only add attempts, which this test allows.
        let deliverer = try WebhookDeliverer(
            configuration: Self.configuration(port: port, timeout: .seconds(2)), store: outbox.store, clock: clock,
            logger: Self.quietLogger)

        let (refusedFirst, allDelivered) = try await Self.running(deliverer) {
            // Each key's head is tried and refused; the events behind them wait.
            let refused = try await Self.eventually { try await outbox.all().filter { $0.attempts >= 2 }.count == 3 }
            let seen = try await outbox.all()
            let heldBack = seen.filter { $0.attempts > 0 }.map(\.id)
            #expect(Set(heldBack) == Set([events[0].id, events[2].id, events[5].id]))
            #expect(seen.allSatisfy { $0.state == .pending && $0.lastError != nil || $0.attempts == 0 })
            _ = try await receiver.start(port: port)
            let delivered = try await Self.eventually {
                try await outbox.all().allSatisfy { $0.state == .delivered }
            }
            return (refused, delivered)
        }
        await receiver.stop()
        await outbox.close()

        #expect(refusedFirst)
        #expect(allDelivered)
        let received = receiver.requests.compactMap(\.eventID)
        // Each committed event at least once, and nothing else.
        #expect(Set(received) == Set(events.map(\.id)))
        // Per key, a later event is first sent only after every send of the one before it.
        for key in ["account:a", "original:b"] {
            let ids = events.filter { $0.key == key }.map(\.id)
            for (earlier, later) in zip(ids, ids.dropFirst()) {
                let lastOfEarlier = try #require(received.lastIndex(of: earlier))
                let firstOfLater = try #require(received.firstIndex(of: later))
                #expect(lastOfEarlier < firstOfLater)
            }
        }
    }

    @Test(arguments: EventStoreUnderTest.Kind.allCases)
    func aSlowReceiverTimesOutAndTheEventIsRetried(kind: EventStoreUnderTest.Kind) async throws {
        guard kind.isAvailable else { return }
        // The first answer comes long after the attempt's timeout; later ones at once.
        let receiver = WebhookReceiver { index in (200, index == 0 ? .seconds(4) : .zero) }
        let port = try await receiver.start()
        let clock = TestWebhookClock()
        let outbox = try await EventStoreUnderTest.open(kind)
        let event = try #require(try await outbox.commit([("slow1", "account:s")], at: clock.now()).first)
        let attempts = Attempts()
        let deliverer = try WebhookDeliverer(
            configuration: Self.configuration(port: port, timeout: .seconds(1)), store: outbox.store, clock: clock,
            logger: Self.quietLogger, observe: attempts.record)

        try await Self.withClient { client in
            #expect(try await deliverer.deliverDue(client: client) == 1)
            let afterTimeout = try #require(try await outbox.event(event.id))
            #expect(afterTimeout.state == .pending)
            #expect(afterTimeout.attempts == 1)
            #expect(afterTimeout.lastError != nil)
            #expect(attempts.all.first?.result == .retried)
            #expect(attempts.all.first?.httpStatus == nil)
            // Rounds until it is due again and delivered.
            for _ in 0..<200 {
                if try await outbox.event(event.id)?.state == .delivered { break }
                _ = try await deliverer.deliverDue(client: client)
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        await receiver.stop()
        let delivered = try await outbox.event(event.id)
        await outbox.close()
        #expect(delivered?.state == .delivered)
        #expect(attempts.all.last?.result == .delivered)
        #expect(receiver.requests.count >= 2)
        #expect(receiver.requests.allSatisfy { $0.eventID == event.id })
    }

    /// AsyncHTTPClient's deadline ends at the response head: a receiver that answers 2xx at once and then trickles its
    /// body must still not hold an attempt past its timeout (and so past its lease).
    @Test func aReceiverTricklingItsAnswerCannotOutlastTheTimeout() async throws {
        let receiver = WebhookReceiver { _ in (200, .zero) }
        // The answer's body never ends until the test says so: without the bound, the round would wait for it until
        // the suite's time limit fails the test.
        receiver.trickleAnswers()
        let port = try await receiver.start()
        let clock = TestWebhookClock()
        let store = InMemoryEventStore()
        let event = Self.event("trickle", key: "account:t", clock: clock)
        store.add([event])
        let deliverer = try WebhookDeliverer(
            configuration: Self.configuration(port: port, timeout: .seconds(1)), store: store, clock: clock,
            logger: Self.quietLogger)

        let claimed = try await Self.withClient { client in try await deliverer.deliverDue(client: client) }
        #expect(claimed == 1)
        let after = try #require(store.event(event.id))
        #expect(after.state == .pending)
        #expect(after.attempts == 1)
        receiver.finishTrickles()
        await receiver.stop()
    }

    @Test(arguments: EventStoreUnderTest.Kind.allCases)
    func anEventOlderThanItsMaxAgeIsParkedAndAReplayQueuesItAgain(kind: EventStoreUnderTest.Kind) async throws {
        guard kind.isAvailable else { return }
        let receiver = WebhookReceiver { _ in (503, .zero) }
        let port = try await receiver.start()
        let clock = TestWebhookClock()
        let outbox = try await EventStoreUnderTest.open(kind)
        let event = try #require(try await outbox.commit([("old1", "account:o")], at: clock.now()).first)
        let attempts = Attempts()
        let deliverer = try WebhookDeliverer(
            configuration: Self.configuration(port: port, maxAge: .seconds(60)), store: outbox.store, clock: clock,
            logger: Self.quietLogger, observe: attempts.record)

        try await Self.withClient { client in
            #expect(try await deliverer.deliverDue(client: client) == 1)
            #expect(try await outbox.event(event.id)?.state == .pending)
            // Two minutes later (its retry long due), the next failure parks it.
            clock.advance(by: .seconds(120))
            #expect(try await deliverer.deliverDue(client: client) == 1)
            let parked = try #require(try await outbox.event(event.id))
            #expect(parked.state == .failed)
            #expect(parked.attempts == 2)
            #expect(parked.lastError == "HTTP 503")
            #expect(attempts.all.map(\.result) == [.retried, .parked])
            // Parked is not claimed again.
            #expect(try await deliverer.deliverDue(client: client) == 0)
            #expect(try await outbox.store.events(LedgerEventQuery(onlyFailed: true)).map(\.id) == [event.id])

            // `webhooks replay --failed`: queued again, its age counted from now; the receiver is back.
            let replayedAt = clock.now()
            #expect(try await outbox.store.requeueEvents(ids: nil, now: replayedAt) == 1)
            let queued = try #require(try await outbox.event(event.id))
            #expect(queued.state == .pending && queued.maxAgeFrom == replayedAt)
            receiver.setScript { _ in (200, .zero) }
            #expect(try await deliverer.deliverDue(client: client) == 1)
        }
        await receiver.stop()
        let delivered = try await outbox.event(event.id)
        await outbox.close()
        #expect(delivered?.state == .delivered)
        #expect(delivered?.attempts == 3)
        #expect(receiver.requests.count == 3)
        #expect(receiver.requests.allSatisfy { $0.eventID == event.id && $0.body == event.body })
    }

    @Test(.enabled(if: IndependentHMAC.available))
    func duringARotationEachRequestCarriesBothSignatures() async throws {
        let receiver = WebhookReceiver()
        let port = try await receiver.start()
        let clock = TestWebhookClock()
        let store = InMemoryEventStore()
        let event = Self.event("rotation", key: "account:r", clock: clock)
        store.add([event])
        let secrets = ["whsec_old_one", "whsec_new_one"]
        let deliverer = try WebhookDeliverer(
            configuration: Self.configuration(port: port, secrets: secrets), store: store, clock: clock,
            logger: Self.quietLogger)

        let claimed = try await Self.withClient { client in try await deliverer.deliverDue(client: client) }
        await receiver.stop()
        #expect(claimed == 1)
        let request = try #require(receiver.requests.first)
        let signature = try #require(request.signature)
        #expect(IndependentHMAC.parse(signature)?.v1.count == 2)
        #expect(try IndependentHMAC.verifies(signature, body: request.body, secrets: secrets))
        // A receiver that knows only the new secret accepts it too: its v1 is among them.
        let onlyNew = try IndependentHMAC.hex(
            secret: "whsec_new_one",
            message: Array("\(IndependentHMAC.parse(signature)?.t ?? "").".utf8) + request.body)
        #expect(IndependentHMAC.parse(signature)?.v1.contains(onlyNew) == true)
    }

    @Test func wakeCutsTheIdleWaitShort() async throws {
        let receiver = WebhookReceiver()
        let port = try await receiver.start()
        let clock = TestWebhookClock()
        let store = InMemoryEventStore()
        // An hour between polls: only the wake-up can make this delivery happen within the test.
        let deliverer = try WebhookDeliverer(
            configuration: Self.configuration(port: port, pollInterval: .seconds(3600)), store: store, clock: clock,
            logger: Self.quietLogger)
        let event = Self.event("woken", key: "account:w", clock: clock)

        let delivered = await Self.running(deliverer) {
            // Let the loop find nothing and go idle first.
            try? await Task.sleep(for: .milliseconds(200))
            store.add([event])
            deliverer.wake()
            return await Self.eventually { store.event(event.id)?.state == .delivered }
        }
        await receiver.stop()
        #expect(delivered)
    }
}
