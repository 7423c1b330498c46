import ReceiptRemote
import Synchronization

/// A clock that moves only when told to, or when something sleeps on it (the sleep returns at once
/// and moves time on by its duration): backoff, deadlines and cool-downs without waiting.
final class ManualClock: RemoteClock {
    private let elapsed = Mutex<Duration>(.zero)
    private let slept = Mutex<[Duration]>([])

    func now() -> Duration { elapsed.withLock { $0 } }

    func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        slept.withLock { $0.append(duration) }
        elapsed.withLock { $0 += duration }
    }

    func advance(by duration: Duration) { elapsed.withLock { $0 += duration } }

    /// Every sleep so far, in order.
    var sleeps: [Duration] { slept.withLock { $0 } }
}
