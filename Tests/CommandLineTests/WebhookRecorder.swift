import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A loopback receiver in the test process for the POSTs of real `receipt-server` processes: records every request
/// (event id, order of arrival, and whether another request with the same id was in flight at that moment) and
/// answers as its mode says: a status at once, a status after a delay, or holding the request until released.
final class WebhookRecorder: Sendable {
    /// How to answer.
    enum Mode: Sendable {
        /// This status, after this delay.
        case answer(Int, after: Duration)
        /// Keeps each request open until the mode changes (or `limit` passes, then 503).
        case hold(limit: Duration)
    }

    /// One request as it arrived.
    struct Arrival: Sendable {
        let eventID: String
        /// 0-based, in arrival order.
        let index: Int
        /// Another request with the same id was being answered when this one arrived.
        let overlapped: Bool
        let body: [UInt8]
    }

    // swift-format-ignore: NeverForceUnwrap
    static let eventIDHeader = HTTPField.Name("X-Receipt-Event-Id")!  // a constant, valid token

    private struct State {
        var arrivals: [Arrival] = []
        var inFlight: [String: Int] = [:]
        var mode: Mode
    }

    private let state: Mutex<State>
    private let running = Mutex<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)

    init(_ mode: Mode = .answer(200, after: .zero)) {
        state = Mutex(State(mode: mode))
    }

    var arrivals: [Arrival] { state.withLock { $0.arrivals } }

    /// Requests being answered now.
    var inFlightCount: Int { state.withLock { $0.inFlight.values.reduce(0, +) } }

    /// Changes how new requests, and requests being held, are answered.
    func setMode(_ mode: Mode) { state.withLock { $0.mode = mode } }

    /// The ids that arrived, each once, in order of first arrival.
    var deliveredIDs: [String] {
        var seen = Set<String>()
        return arrivals.map(\.eventID).filter { seen.insert($0).inserted }
    }

    /// Starts listening on 127.0.0.1 (a free port); returns the port.
    func start() async throws -> Int {
        let router = Router()
        router.post("/hooks") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 20)
            let id = request.headers[Self.eventIDHeader] ?? ""
            self.state.withLock { state in
                state.arrivals.append(
                    Arrival(
                        eventID: id, index: state.arrivals.count, overlapped: state.inFlight[id, default: 0] > 0,
                        body: Array(body.readableBytesView)))
                state.inFlight[id, default: 0] += 1
            }
            defer { self.state.withLock { $0.inFlight[id, default: 1] -= 1 } }
            let start = ContinuousClock.now
            while true {
                switch self.state.withLock({ $0.mode }) {
                case .answer(let status, let delay):
                    if delay > .zero { try? await Task.sleep(for: delay) }
                    return Response(status: HTTPResponse.Status(code: status))
                case .hold(let limit):
                    guard ContinuousClock.now - start < limit else { return Response(status: .serviceUnavailable) }
                    try? await Task.sleep(for: .milliseconds(20))  // polling for a release, not timing anything
                }
            }
        }
        var logger = Logger(label: "webhook-recorder")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        running.withLock { $0 = (group, task) }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next(), bound > 0 else { throw CancellationError() }
        return bound
    }

    /// Releases held requests and stops listening.
    func stop() async {
        setMode(.answer(503, after: .zero))
        guard
            let running = running.withLock({ state in
                defer { state = nil }; return state
            })
        else { return }
        await running.group.triggerGracefulShutdown()
        _ = try? await running.task.value
    }
}
