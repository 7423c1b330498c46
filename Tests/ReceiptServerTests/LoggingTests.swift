import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import Synchronization
import ReceiptVerification
import Testing

/// Logs at every level never carry receipt data or the shared secret.
@Suite("logging", .timeLimit(.minutes(1)))
struct LoggingTests {
    typealias Support = ServerTestSupport

    /// Collects every rendered log line (message and metadata).
    final class LogRecorder: Sendable {
        let lines = Mutex<[String]>([])
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
            let all = self.metadata.merging(metadata ?? [:]) { $1 }
            recorder.lines.withLock { $0.append("\(level) \(message) \(all)") }
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
                Support.appleRequest(valid, password: secret), Support.appleRequest(forged, password: "wrong-\(secret)"),
                ByteBuffer(string: "{\"receipt-data\":\"%%%\(secret)\"}"), ByteBuffer(string: "not json \(secret)"),
            ] {
                for path in ["/verifyReceipt", "/sandbox/verifyReceipt", "/v1/verify"] {
                    _ = try await client.execute(uri: path, method: .post, body: body)
                }
            }
        }
        let lines = recorder.lines.withLock { $0 }
        #expect(!lines.isEmpty)
        let receiptText = String(Base64.encode(valid).prefix(64).suffix(40))
        let forgedText = String(Base64.encode(forged).prefix(64).suffix(40))
        for line in lines {
            #expect(!line.contains(secret))
            #expect(!line.contains(receiptText))
            #expect(!line.contains(forgedText))
        }
    }
}
