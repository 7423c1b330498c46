import Hummingbird
package import Logging
import NIOCore
@_spi(Fuzzing) package import ReceiptModel
package import ReceiptVerification
import Synchronization

/// A loopback stand-in for Apple's verifyReceipt endpoints and App Store Server API, with scripted behaviours and a record of
/// every request, for tests and for trying the remote fallback by hand.
///
/// Two listeners (production and sandbox) serve `POST /verifyReceipt`. Each answers as Apple does
/// (``StandInBehaviour/apple``) unless a script says otherwise: a status, an HTTP error, a malformed or
/// huge body, a delay, a dropped connection. Bind to 127.0.0.1 port 0 and read the ports from
/// ``StandInAddresses``.
///
/// The same listeners serve the App Store Server API (production is the Production environment, sandbox
/// Sandbox) from ``ServerAPIData`` given to ``serveServerAPI(_:in:minter:)``, with scripts of
/// ``ServerAPIBehaviour`` of their own (`AppleStandIn+ServerAPI.swift`).
///
/// ```swift
/// let standIn = AppleStandIn()
/// standIn.script(.production, [.status(21005)])       // then Apple's real answer
/// try await standIn.withRunning { addresses in … addresses.productionURL … }
/// standIn.callCount(.production)                      // 2
/// ```
package final class AppleStandIn: Sendable {
    /// How the faithful behaviour decides.
    package struct Configuration: Sendable {
        /// When set, receipts it proves `invalid` get 21003 (inconclusive ones, like iOS 6 receipts whose
        /// chain cannot be completed offline, are accepted as Apple would). `nil`: decode only.
        package var verifier: ReceiptVerifier?
        /// When set, a request whose `password` differs gets 21004, and only a matching one gets
        /// `latest_receipt_info`. `nil`: any password is accepted.
        package var sharedSecret: String?
        /// The answer's `request_date`, and "now" for 21006; `nil` leaves `request_date` out.
        package var now: (@Sendable () -> ReceiptDate)?
        /// When set, `latest_receipt_info` adds one renewal per subscription, expiring at this instant:
        /// what Apple knows and an old receipt cannot show.
        package var renewedUntil: ReceiptDate?
        /// The largest request body read.
        package var maximumRequestSize: Int
        /// When set, every App Store Server API request must carry a token this accepts, or gets 401 with an
        /// empty body; `nil`: tokens are decoded and recorded, never refused.
        package var serverAPIAuthorization: ServerAPIAuthorization?
        /// Items per page of the App Store Server API's paged answers (Apple's is 20).
        package var serverAPIPageSize: Int
        /// The App Store Server API's clock, UNIX milliseconds: arrival times, `Retry-After`, token expiry,
        /// subscription status. The wall clock unless set (a stand-in is a server: it answers in real time).
        package var serverAPIClock: @Sendable () -> Int64

        package init(
            verifier: ReceiptVerifier? = nil, sharedSecret: String? = nil, now: (@Sendable () -> ReceiptDate)? = nil,
            renewedUntil: ReceiptDate? = nil, maximumRequestSize: Int = 16 * 1024 * 1024,
            serverAPIAuthorization: ServerAPIAuthorization? = nil, serverAPIPageSize: Int = 20,
            serverAPIClock: @escaping @Sendable () -> Int64 = WallClock.unixMilliseconds
        ) {
            self.verifier = verifier
            self.sharedSecret = sharedSecret
            self.now = now
            self.renewedUntil = renewedUntil
            self.maximumRequestSize = maximumRequestSize
            self.serverAPIAuthorization = serverAPIAuthorization
            self.serverAPIPageSize = max(1, serverAPIPageSize)
            self.serverAPIClock = serverAPIClock
        }
    }

    private struct State {
        var scripts: [ReceiptEnvironment: [StandInBehaviour]] = [:]
        var defaults: [ReceiptEnvironment: StandInBehaviour] = [:]
        var recorded: [RecordedRequest] = []
    }

    package let configuration: Configuration
    let logger: Logger
    private let state = Mutex(State())
    /// The App Store Server API's data, scripts and record (`AppleStandIn+ServerAPI.swift`).
    let serverAPI = Mutex(ServerAPIState())

    /// - Parameter logger: the listeners' logger; request bodies are never logged.
    package init(configuration: Configuration = Configuration(), logger: Logger = Logger(label: "apple-standin")) {
        self.configuration = configuration
        self.logger = logger
    }

    // MARK: - Scripting and recording

    /// Appends behaviours to an endpoint's script; each request takes the next one.
    package func script(_ endpoint: ReceiptEnvironment, _ behaviours: [StandInBehaviour]) {
        state.withLock { $0.scripts[endpoint, default: []] += behaviours }
    }

    /// What an endpoint does once its script is used up (``StandInBehaviour/apple`` at first).
    package func setDefault(_ endpoint: ReceiptEnvironment, _ behaviour: StandInBehaviour) {
        state.withLock { $0.defaults[endpoint] = behaviour }
    }

    /// Every request received so far, in arrival order (optionally only one endpoint's).
    package func requests(_ endpoint: ReceiptEnvironment? = nil) -> [RecordedRequest] {
        state.withLock { state in state.recorded.filter { endpoint == nil || $0.endpoint == endpoint } }
    }

    /// How many requests an endpoint received.
    package func callCount(_ endpoint: ReceiptEnvironment) -> Int { requests(endpoint).count }

    /// Forgets scripts, defaults and recorded requests, of verifyReceipt and of the App Store Server API (whose
    /// served data stays).
    package func reset() {
        state.withLock { $0 = State() }
        serverAPI.withLock { api in api = ServerAPIState(data: api.data) }
    }

    private func nextBehaviour(recording request: RecordedRequest) -> StandInBehaviour {
        state.withLock { state in
            state.recorded.append(request)
            if var script = state.scripts[request.endpoint], !script.isEmpty {
                let next = script.removeFirst()
                state.scripts[request.endpoint] = script
                return next
            }
            return state.defaults[request.endpoint] ?? .apple
        }
    }

    // MARK: - Running

    /// Runs both listeners until the task is cancelled.
    /// - Parameters:
    ///   - host: the address to bind; keep 127.0.0.1 for tests.
    ///   - productionPort: 0 for an ephemeral port.
    ///   - sandboxPort: 0 for an ephemeral port.
    ///   - onReady: called once with the bound ports.
    package func run(
        host: String = "127.0.0.1", productionPort: Int = 0, sandboxPort: Int = 0,
        onReady: @escaping @Sendable (StandInAddresses) async -> Void
    ) async throws {
        let (ports, continuation) = AsyncStream<(ReceiptEnvironment, Int)>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for endpoint in [ReceiptEnvironment.production, .sandbox] {
                let port = endpoint == .production ? productionPort : sandboxPort
                let application = Application(
                    router: makeRouter(endpoint),
                    configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
                    onServerRunning: { channel in continuation.yield((endpoint, channel.localAddress?.port ?? port)) },
                    logger: logger)
                group.addTask {
                    defer { continuation.finish() }
                    try await application.run()
                }
            }
            var bound: [ReceiptEnvironment: Int] = [:]
            for await (endpoint, port) in ports {
                bound[endpoint] = port
                if bound.count == 2 { break }
            }
            if let production = bound[.production], let sandbox = bound[.sandbox] {
                let addresses = StandInAddresses(host: host, productionPort: production, sandboxPort: sandbox)
                logger.info(
                    "apple stand-in listening",
                    metadata: ["production": "\(addresses.productionURL)", "sandbox": "\(addresses.sandboxURL)"])
                await onReady(addresses)
            }
            // Surfaces a listener's failure; otherwise waits for cancellation.
            try await group.next()
            throw StandInError(.notStarted, "a listener stopped")
        }
    }

    /// Starts both listeners on 127.0.0.1 (ephemeral ports), runs `body` with their addresses, then stops them.
    package func withRunning<T: Sendable>(
        host: String = "127.0.0.1", _ body: (StandInAddresses) async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            let (ready, continuation) = AsyncStream<StandInAddresses>.makeStream()
            group.addTask {
                defer { continuation.finish() }
                try await self.run(host: host) { addresses in continuation.yield(addresses) }
            }
            var iterator = ready.makeAsyncIterator()
            guard let addresses = await iterator.next() else {
                try await group.next()
                throw StandInError(.notStarted, "the listeners stopped before reporting their ports")
            }
            defer { group.cancelAll() }
            return try await body(addresses)
        }
    }

    private func makeRouter(_ endpoint: ReceiptEnvironment) -> Router<BasicRequestContext> {
        let router = Router()
        router.post("verifyReceipt") { request, _ -> Response in
            var request = request
            let buffer = try await request.collectBody(upTo: self.configuration.maximumRequestSize)
            let recorded = RecordedRequest(endpoint: endpoint, body: Array(buffer.readableBytesView))
            let behaviour = self.nextBehaviour(recording: recorded)
            self.logger.debug(
                "verifyReceipt request", metadata: ["endpoint": "\(endpoint)", "bytes": "\(recorded.body.count)"])
            return try await self.respond(behaviour, to: recorded)
        }
        addServerAPIRoutes(to: router, environment: endpoint)
        return router
    }

    private func respond(_ behaviour: StandInBehaviour, to request: RecordedRequest) async throws -> Response {
        switch behaviour {
        case .apple:
            return Self.json(appleAnswer(to: request))
        case .status(let status, let isRetryable):
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("status", Int64(status))
            writer.field("environment", request.endpoint == .production ? "Production" : "Sandbox")
            if let isRetryable { writer.field("is-retryable", isRetryable) }
            writer.endObject()
            return Self.json(writer.bytes)
        case .httpStatus(let code):
            return Response(status: HTTPResponse.Status(code: code))
        case .body(let text):
            return Self.json(Array(text.utf8))
        case .hugeBody(let size):
            let prefix = Array(#"{"status":0,"padding":""#.utf8)
            let suffix = Array(#""}"#.utf8)
            let padding = [UInt8](repeating: UInt8(ascii: "x"), count: max(0, size - prefix.count - suffix.count))
            return Self.json(prefix + padding + suffix)
        case .delayed(let duration, let then):
            try await Task.sleep(for: duration)
            return try await respond(then, to: request)
        case .dropConnection:
            // No content length: the head goes out, then the body writer fails and the server closes
            // the connection mid-response, as a dropped connection looks to the client.
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody { _ in throw StandInError(.droppedOnPurpose, "scripted drop") })
        }
    }

    static func json(_ bytes: [UInt8]) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
