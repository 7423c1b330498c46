import ReceiptModel
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

    /// The wall clock: 2026-01-01T00:00:00Z plus the time elapsed on this clock.
    func wallTime() -> ReceiptDate {
        let elapsed = now().components
        return ReceiptDate(
            clampingMillisecondsSince1970: 1_767_225_600_000 + elapsed.seconds * 1000 + elapsed.attoseconds
                / 1_000_000_000_000_000)
    }

    func advance(by duration: Duration) { elapsed.withLock { $0 += duration } }

    /// Every sleep so far, in order.
    var sleeps: [Duration] { slept.withLock { $0 } }
}
