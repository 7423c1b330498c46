#if DEBUG
    /// Counts the element headers the reader parses, so that tests can prove the reader's work is linear in its
    /// input without timing anything. Debug builds only: release builds carry no trace of it.
    ///
    /// A meter counts the parses of the task (or thread) that installed it with ``measure(_:)``, so tests that
    /// run in parallel do not disturb each other's counts.
    @usableFromInline
    final class ParseMeter: @unchecked Sendable {
        // @unchecked: only the task that installed the meter can reach it (through the task-local below), and
        // parsing is synchronous, so `headers` is never touched from two threads at once.

        /// How many identifier-and-length headers were parsed, by scans for an end-of-contents and by `next()`.
        private(set) var headers = 0

        @TaskLocal static var current: ParseMeter?

        /// Called once per header parse.
        @usableFromInline
        static func countHeader() { current?.headers += 1 }

        /// Runs `body` with a fresh meter installed; returns its result and the number of headers it parsed.
        static func measure<Result>(_ body: () throws -> Result) rethrows -> (result: Result, headers: Int) {
            let meter = ParseMeter()
            let result = try $current.withValue(meter) { try body() }
            return (result, meter.headers)
        }
    }
#endif
