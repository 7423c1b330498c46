import Logging

/// Passes on only records at or above a floor level, whatever level the wrapped handler is at.
///
/// AsyncHTTPClient gets its loggers through this: at `trace` it logs every HTTP part it reads, and a body
/// part's description is a hex dump of its first and last 32 bytes: Apple's answer, receipt data and
/// `latest_receipt` included. With the floor at `debug`, an application that logs at `trace` still sees
/// AsyncHTTPClient's connection and error records, never a body.
struct LevelFloorLogHandler: LogHandler {
    /// The handler records go to.
    var wrapped: any LogHandler
    /// The lowest level passed on.
    let floor: Logger.Level

    /// A copy of `logger` whose records below `floor` are dropped.
    static func logger(_ logger: Logger, floor: Logger.Level) -> Logger {
        let handler = LevelFloorLogHandler(wrapped: logger.handler, floor: floor)
        return Logger(label: logger.label) { _ in handler }
    }

    var logLevel: Logger.Level {
        get { max(wrapped.logLevel, floor) }
        set { wrapped.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        guard event.level >= floor else { return }
        wrapped.log(event: event)
    }
}
