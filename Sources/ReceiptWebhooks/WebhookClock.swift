public import ReceiptModel

/// Where the deliverer reads "now" and how it waits: injected, so library code never reads the wall clock on its
/// own and tests can move time (an event's maximum age) without waiting for it.
public protocol WebhookClock: Sendable {
    /// The wall-clock instant: attempts' timestamps, leases, when the next attempt is due, the maximum age.
    func now() -> ReceiptDate
    /// Waits `duration` (the idle poll); throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}
