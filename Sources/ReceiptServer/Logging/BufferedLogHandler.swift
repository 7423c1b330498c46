public import Logging

/// A swift-log handler that writes lines as swift-log's `StreamLogHandler` does
/// (`<time> <level> <label>: <key=value …> [<source>] <message>`), through a ``LogSink``: buffered, sharded by
/// thread, `warning` and above written at once.
///
/// What makes a line cheap: the timestamp text is made once a second; the handler's metadata (Hummingbird sets a
/// request id on every request's logger) is kept as it is and written only when a line is; each line is composed
/// straight into the sink's buffer. The access log (`info`, one line per request) costs a few hundred nanoseconds
/// per request; BENCHMARKS.md measures it on and off.
///
/// ```swift
/// LoggingSystem.bootstrap { label in BufferedLogHandler(label: label, level: .info) }
/// ```
public struct BufferedLogHandler: LogHandler {
    public let label: String
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let sink: LogSink

    public init(
        label: String, level: Logger.Level = .info, sink: LogSink = .standardError,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.label = label
        self.logLevel = level
        self.sink = sink
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided) { _, provided in provided }
        }
        if let own = event.metadata, !own.isEmpty { merged.merge(own) { _, own in own } }
        let level = event.level
        let source = event.source
        let message = event.message.description
        let label = label
        sink.append(urgent: level >= .warning) { line, timestamp in
            line += timestamp
            line.append(UInt8(ascii: " "))
            line += level.rawValue.utf8
            if !label.isEmpty {
                line.append(UInt8(ascii: " "))
                line += label.utf8
            }
            line.append(UInt8(ascii: ":"))
            for key in merged.keys.sorted() {
                guard let value = merged[key] else { continue }
                line.append(UInt8(ascii: " "))
                line += key.utf8
                line.append(UInt8(ascii: "="))
                Self.append(value, to: &line)
            }
            line += " [".utf8
            line += source.utf8
            line += "] ".utf8
            line += message.utf8
            line.append(UInt8(ascii: "\n"))
        }
    }

    /// A metadata value as `StreamLogHandler` writes it: strings bare, lists and dictionaries as swift-log describes them.
    private static func append(_ value: Logger.Metadata.Value, to line: inout [UInt8]) {
        switch value {
        case .string(let text): line += text.utf8
        case .stringConvertible(let convertible): line += convertible.description.utf8
        case .array, .dictionary: line += value.description.utf8
        }
    }
}
