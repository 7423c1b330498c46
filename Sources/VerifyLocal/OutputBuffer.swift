#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reports on their way to a file descriptor: collected in one byte buffer and written with `write(2)` a
/// batch at a time, so a run over thousands of receipts makes a few large writes instead of a locked `print`
/// per line.
///
/// Used by one task only (the one that puts reports in order); not `Sendable`.
struct OutputBuffer {
    let descriptor: Int32
    /// Written out once this many bytes are waiting.
    let threshold: Int
    /// Write after every report, as C's standard output does on a terminal: someone is watching it.
    let flushesEveryReport: Bool
    private var pending: [UInt8] = []

    /// - Parameters:
    ///   - descriptor: where to write; standard output by default.
    ///   - flushesEveryReport: `nil` decides by the descriptor: every report on a terminal, batches otherwise.
    init(descriptor: Int32 = STDOUT_FILENO, threshold: Int = 64 * 1024, flushesEveryReport: Bool? = nil) {
        self.descriptor = descriptor
        self.threshold = threshold
        self.flushesEveryReport = flushesEveryReport ?? (isatty(descriptor) == 1)
        pending.reserveCapacity(threshold + threshold / 2)
    }

    /// Adds a line of text (notes to standard error).
    mutating func append(_ text: String) throws(POSIXErrorNumber) {
        try append(Array(text.utf8))
    }

    /// Adds one report; writes the batch when it is full (or at once, when ``flushesEveryReport``).
    mutating func append(_ report: [UInt8]) throws(POSIXErrorNumber) {
        pending.append(contentsOf: report)
        if flushesEveryReport || pending.count >= threshold { try flush() }
    }

    /// Writes everything waiting.
    mutating func flush() throws(POSIXErrorNumber) {
        var failure: POSIXErrorNumber?
        pending.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                guard let base = bytes.baseAddress else { return }
                let written = write(descriptor, base + offset, bytes.count - offset)
                if written >= 0 {
                    offset += written
                } else if errno == EAGAIN || errno == EWOULDBLOCK {
                    // A non-blocking descriptor that is full: wait until it takes more.
                    var waiting = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&waiting, 1, -1)
                } else if errno != EINTR {
                    failure = .current
                    return
                }
            }
        }
        pending.removeAll(keepingCapacity: true)
        if let failure { throw failure }
    }
}
