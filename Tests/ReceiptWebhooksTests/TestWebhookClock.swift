import ReceiptModel
import ReceiptWebhooks
import Synchronization

/// A clock whose "now" runs with real time from a fixed start and can be moved forward (an event's maximum age
/// passes without waiting for it). Its sleep is a real one.
final class TestWebhookClock: WebhookClock {
    private let start = ContinuousClock.now
    private let origin: ReceiptDate
    private let offset = Mutex<Duration>(.zero)

    init(origin: ReceiptDate = ReceiptDate(clampingMillisecondsSince1970: 1_795_000_000_000)) {
        self.origin = origin
    }

    func now() -> ReceiptDate {
        let elapsed = (ContinuousClock.now - start) + offset.withLock { $0 }
        let parts = elapsed.components
        return ReceiptDate(
            clampingMillisecondsSince1970: origin.millisecondsSince1970 + parts.seconds * 1000 + parts.attoseconds
                / 1_000_000_000_000_000)
    }

    /// Moves "now" forward by `duration`.
    func advance(by duration: Duration) {
        offset.withLock { $0 += duration }
    }

    func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
