import Glibc
import Synchronization

/// Where a server's log lines go (standard error by default), at memory speed: a line is appended to a buffer and a
/// background thread writes the buffers out every ``flushInterval``.
///
/// - **No contention between event loops.** The buffers are sharded by thread: each event loop appends to a buffer
///   of its own under a lock nobody else takes, but the flush that swaps it out.
/// - **Nothing important waits.** A line at `warning` or above is written at once, with everything buffered
///   before it, so a problem is on the terminal when it happens.
/// - **Bounded.** A shard that holds more than ``maximumBuffered`` bytes (the output cannot keep up) is written by
///   the thread that filled it: the server slows down rather than grow without limit or drop lines.
/// - **What a crash loses.** Lines below `warning` from the last ``flushInterval`` may be lost to `kill -9`; a clean
///   stop writes them (``flush()``, also run at exit).
///
/// Lines of different threads may leave in another order than they were logged within one interval; each carries
/// its own time.
public final class LogSink: Sendable {
    /// Standard error, flushed every 100 ms and at exit.
    public static let standardError = LogSink(fileDescriptor: STDERR_FILENO)

    /// How often the background thread writes the buffers out.
    public static let flushInterval: Duration = .milliseconds(100)
    /// The most a shard buffers before the thread appending to it writes it out itself.
    public static let maximumBuffered = 1 << 20
    /// Shards: a power of two, more than the threads that log at once.
    static let shardCount = 16

    /// One shard's lines not yet written, and the current second's timestamp text.
    struct Pending {
        var bytes: [UInt8] = []
        var second = Int.min
        var stamp: [UInt8] = []
    }

    /// A shard: a lock and what it guards (a class, as `Mutex` cannot be stored in an array).
    final class Shard: Sendable {
        let pending = Mutex(Pending())
    }

    private let fileDescriptor: Int32
    private let shards: [Shard]
    /// Held while buffers are written, so that two writers never interleave their bytes.
    private let writing = Mutex(())
    private let flusherStarted = Atomic(false)

    /// - Parameter fileDescriptor: where the lines are written (not closed by the sink).
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    /// Appends one line, composed by `compose` into the calling thread's buffer after the timestamp it is given
    /// (`YYYY-MM-DDTHH:MM:SS+0000`, UTC, cached per second); writes at once when `urgent`.
    func append(urgent: Bool, _ compose: (inout [UInt8], _ timestamp: [UInt8]) -> Void) {
        startFlusher()
        let shard = shards[Self.shardIndex()]
        let full = shard.pending.withLock { pending -> Bool in
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let second = Int(now.tv_sec)
            if second != pending.second {
                pending.second = second
                pending.stamp = Self.timestamp(second)
            }
            compose(&pending.bytes, pending.stamp)
            return pending.bytes.count > Self.maximumBuffered
        }
        if urgent || full { flush() }
    }

    /// Writes every buffered line now.
    public func flush() {
        writing.withLock { _ in
            for shard in shards {
                var taken: [UInt8] = []
                shard.pending.withLock { pending in swap(&taken, &pending.bytes) }
                guard !taken.isEmpty else { continue }
                write(taken)
                // The emptied buffer goes back for reuse when nothing was appended meanwhile: no allocation per flush.
                taken.removeAll(keepingCapacity: true)
                shard.pending.withLock { pending in
                    if pending.bytes.isEmpty { swap(&taken, &pending.bytes) }
                }
            }
        }
    }

    /// All of `bytes`, through partial writes and interruptions; an output that fails loses them (logging never
    /// stops the server).
    private func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fileDescriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// The flusher thread, started with the first line; and a flush at exit.
    private func startFlusher() {
        guard !flusherStarted.load(ordering: .relaxed),
            flusherStarted.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        else { return }
        // A thread of its own (not a task: the flush blocks in write(2)), holding the sink for the process's life.
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let sink = Unmanaged<LogSink>.fromOpaque(argument).takeUnretainedValue()
                let interval = UInt32(LogSink.flushInterval.components.attoseconds / 1_000_000_000_000)
                while true {
                    usleep(interval)
                    sink.flush()
                }
            }, Unmanaged.passRetained(self).toOpaque())
        if started == 0 { pthread_detach(thread) }
        if self === LogSink.standardError { atexit { LogSink.standardError.flush() } }
    }

    /// The calling thread's shard.
    private static func shardIndex() -> Int {
        // Thread ids are addresses of thread control blocks: multiply to spread their high bits, keep the top bits.
        let hashed = UInt64(UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: hashed >> 60) & (shardCount - 1)
    }

    /// `YYYY-MM-DDTHH:MM:SS+0000` for `second` (UTC).
    package static func timestamp(_ second: Int) -> [UInt8] {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        var text: [UInt8] = []
        text.reserveCapacity(24)
        func digits(_ value: Int32, _ count: Int) {
            var divisor: Int32 = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = max(0, value)
            for _ in 0..<count {
                text.append(UInt8(truncatingIfNeeded: 48 + (rest / divisor) % 10))
                rest %= divisor
                divisor = max(1, divisor / 10)
            }
        }
        digits(parts.tm_year + 1900, 4)
        text.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2)
        text.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2)
        text.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2)
        text.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2)
        text.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2)
        text += Array("+0000".utf8)
        return text
    }
}
