import Logging
import Synchronization

/// Collects every log record (message and metadata, rendered as text) at `.trace`, to prove what is
/// never logged.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// A logger at `.trace` writing here.
    func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { label in CapturingLogHandler(label: label, capture: self) }
        logger.logLevel = .trace
        return logger
    }
}

struct CapturingLogHandler: LogHandler {
    let label: String
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        capture.append("\(event.level) \(label) \(event.message) \(merged) \(event.source) \(event.file)")
    }
}
