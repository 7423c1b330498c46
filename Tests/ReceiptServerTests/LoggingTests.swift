import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import Synchronization
import Testing

/// Logs at every level never carry receipt data or the shared secret.
@Suite("logging", .timeLimit(.minutes(1)))
struct LoggingTests {
    typealias Support = ServerTestSupport

    /// One log call: its level, message and metadata (the logger's merged with the call's).
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]

        /// The line as a log handler would render it.
        var line: String { "\(level) \(message) \(metadata)" }
    }

    /// Collects every log call.
    final class LogRecorder: Sendable {
        let entries = Mutex<[Entry]>([])
        var lines: [String] { entries.withLock { $0.map(\.line) } }
    }

    struct RecordingHandler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(
            level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
            function: String, line: UInt
        ) {
            let all = self.metadata.merging(metadata ?? [:]) { $1 }.mapValues { "\($0)" }
            recorder.entries.withLock { $0.append(Entry(level: level, message: "\(message)", metadata: all)) }
        }
    }

    @Test("trace-level logs of valid, forged, malformed and secret-bearing requests contain neither receipt nor secret")
    func logsCarryNoReceiptOrSecret() async throws {
        let recorder = LogRecorder()
        let logger = Logger(label: "receipt-server-test") { _ in RecordingHandler(recorder: recorder) }
        let secret = "s3cr3t-shared-secret-value"
        let service = ReceiptService(
            configuration: Support.configuration(sharedSecret: secret),
            decider: FallbackVerifier(verifier: try Support.verifier()), logger: logger)
        let valid = try Support.fixture("valid-sha256.receipt")
        let forged = try Support.fixture("tampered-payload.receipt")
        try await service.makeApplication().test(.router) { client in
            for body in [
                Support.appleRequest(valid, password: secret),
                Support.appleRequest(forged, password: "wrong-\(secret)"),
                ByteBuffer(string: "{\"receipt-data\":\"%%%\(secret)\"}"), ByteBuffer(string: "not json \(secret)"),
            ] {
                for path in ["/verifyReceipt", "/sandbox/verifyReceipt", "/v1/verify"] {
                    _ = try await client.execute(uri: path, method: .post, body: body)
                }
            }
        }
        let lines = recorder.lines
        #expect(!lines.isEmpty)
        let receiptText = String(Base64.encode(valid).prefix(64).suffix(40))
        let forgedText = String(Base64.encode(forged).prefix(64).suffix(40))
        for line in lines {
            #expect(!line.contains(secret))
            #expect(!line.contains(receiptText))
            #expect(!line.contains(forgedText))
        }
    }

    static func service(_ recorder: LogRecorder, level: Logger.Level) throws -> ReceiptService {
        var logger = Logger(label: "receipt-server-test") { _ in RecordingHandler(recorder: recorder) }
        logger.logLevel = level
        return ReceiptService(
            configuration: Support.configuration(), decider: FallbackVerifier(verifier: try Support.verifier()),
            logger: logger)
    }

    @Test("at debug: one access line per receipt request, and every line of a request carries its request id")
    func accessLinesAndRequestIDs() async throws {
        let recorder = LogRecorder()
        let valid = try Support.fixture("valid-sha256.receipt")
        try await Self.service(recorder, level: .debug).makeApplication().test(.router) { client in
            _ = try await client.execute(
                uri: "/sandbox/verifyReceipt", method: .post, body: Support.appleRequest(valid))
            _ = try await client.execute(uri: "/verifyReceipt", method: .post, body: ByteBuffer(string: "nope"))
            _ = try await client.execute(
                uri: "/v1/verify?password=not-logged", method: .post, headers: [.contentType: "text/plain"],
                body: ByteBuffer(string: "x"))
            _ = try await client.execute(uri: "/health", method: .get)
        }
        let entries = recorder.entries.withLock { $0 }
        let access = entries.filter { $0.message == "request" }
        #expect(access.count == 3)
        #expect(access.allSatisfy { $0.level == .info && $0.metadata["method"] == "POST" })
        #expect(access.allSatisfy { ($0.metadata["duration"] ?? "").hasSuffix("ms") })
        #expect(access.map { $0.metadata["endpoint"] } == ["/sandbox/verifyReceipt", "/verifyReceipt", "/v1/verify"])
        #expect(access.map { $0.metadata["http_status"] } == ["200", "200", "415"])
        #expect(access.map { $0.metadata["refusal"] } == [nil, "server.invalid_json", "server.unsupported_media_type"])
        #expect(access.map { $0.metadata["status"] } == [nil, "21000", nil])
        // Hummingbird's request id, one per request, on the handler's lines as on the access line.
        let ids = access.compactMap { $0.metadata["hb.request.id"] }
        #expect(Set(ids).count == 3)
        let answered = try #require(entries.first { $0.message == "answered" })
        #expect(answered.metadata["hb.request.id"] == ids.first)
        #expect(answered.metadata["endpoint"] == "/sandbox/verifyReceipt")
        #expect(answered.metadata["status"] == "0")
        // The route's pattern is logged, never the URI with its query.
        #expect(!entries.contains { $0.line.contains("not-logged") })
    }

    @Test("at info, the default: the access line and nothing else per request; at warning, nothing")
    func accessLineAtInfo() async throws {
        let valid = try Support.fixture("valid-sha256.receipt")
        for (level, expected) in [(Logger.Level.info, ["request", "request"]), (.warning, [])] {
            let recorder = LogRecorder()
            try await Self.service(recorder, level: level).makeApplication().test(.router) { client in
                _ = try await client.execute(
                    uri: "/sandbox/verifyReceipt", method: .post, body: Support.appleRequest(valid))
                _ = try await client.execute(uri: "/v1/verify", method: .post, body: ByteBuffer(string: "nope"))
            }
            #expect(recorder.entries.withLock { $0 }.map(\.message) == expected, "at \(level)")
        }
    }

    @Test func durationsAreMillisecondsWithThreeDecimals() {
        #expect(RouteObserverMiddleware<BasicRequestContext>.milliseconds(.microseconds(412)) == "0.412ms")
        #expect(RouteObserverMiddleware<BasicRequestContext>.milliseconds(.milliseconds(12_345)) == "12345.000ms")
        #expect(RouteObserverMiddleware<BasicRequestContext>.milliseconds(.nanoseconds(1_999)) == "0.001ms")
        #expect(RouteObserverMiddleware<BasicRequestContext>.milliseconds(.seconds(-1)) == "0.000ms")
    }
}
