import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A loopback HTTP receiver for the deliverer's POSTs: records each request (headers and body) and answers as its
/// script says (a status, after an optional delay). Started and stopped by the test, on a port it may reuse, so a
/// test can have it refuse connections (stopped) and then accept them.
final class WebhookReceiver: Sendable {
    /// One request as it arrived.
    struct Received: Sendable {
        let eventID: String?
        let eventType: String?
        let signature: String?
        let contentType: String?
        let body: [UInt8]
    }

    /// What to answer the `n`th request (0-based): a status, after a delay.
    typealias Script = @Sendable (_ index: Int) -> (status: Int, delay: Duration)

    // swift-format-ignore: NeverForceUnwrap
    static let eventIDHeader = HTTPField.Name("X-Receipt-Event-Id")!  // a constant, valid token
    // swift-format-ignore: NeverForceUnwrap
    static let eventTypeHeader = HTTPField.Name("X-Receipt-Event-Type")!  // a constant, valid token
    // swift-format-ignore: NeverForceUnwrap
    static let signatureHeader = HTTPField.Name("X-Receipt-Signature")!  // a constant, valid token

    private let received = Mutex<[Received]>([])
    /// When set, each answer's head and a first chunk go out at once, the rest of its body only after
    /// ``finishTrickles()``.
    private let trickles = Mutex(false)
    private let script: Mutex<Script>
    private let running = Mutex<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)

    init(script: @escaping Script = { _ in (200, .zero) }) {
        self.script = Mutex(script)
    }

    var requests: [Received] { received.withLock { $0 } }

    func setScript(_ script: @escaping Script) { self.script.withLock { $0 = script } }

    /// Makes each answer's body trickle: its head at once, its end only when ``finishTrickles()`` is called.
    func trickleAnswers() { trickles.withLock { $0 = true } }

    /// Lets every trickling answer end.
    func finishTrickles() { trickles.withLock { $0 = false } }

    /// Starts listening on 127.0.0.1:`port` (0 picks one); returns the port.
    func start(port: Int = 0) async throws -> Int {
        let router = Router()
        router.post("/hooks") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let answer = self.received.withLock { received in
                received.append(
                    Received(
                        eventID: request.headers[Self.eventIDHeader],
                        eventType: request.headers[Self.eventTypeHeader],
                        signature: request.headers[Self.signatureHeader],
                        contentType: request.headers[.contentType], body: Array(body.readableBytesView)))
                return self.script.withLock { $0 }(received.count - 1)
            }
            if answer.delay > .zero { try? await Task.sleep(for: answer.delay) }
            guard self.trickles.withLock({ $0 }) else {
                return Response(status: HTTPResponse.Status(code: answer.status))
            }
            return Response(
                status: HTTPResponse.Status(code: answer.status),
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "{"))
                    while self.trickles.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(20)) }
                    try await writer.write(ByteBuffer(string: "}"))
                    try await writer.finish(nil)
                })
        }
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        running.withLock { $0 = (group, task) }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0 else { throw CancellationError() }
        return bound
    }

    /// Stops listening (graceful: requests in progress finish); connections are refused afterwards.
    func stop() async {
        guard
            let running = running.withLock({ state in
                defer { state = nil }; return state
            })
        else { return }
        await running.group.triggerGracefulShutdown()
        _ = try? await running.task.value
    }
}
