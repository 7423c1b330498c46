public import ReceiptModel

/// The time source of the remote client: a monotonic "now" and a sleep.
///
/// Injected so that backoff, deadlines and the circuit breaker's cool-down are deterministic in tests
/// (a manual clock whose sleep just moves its time on). The library reads time only through this.
public protocol RemoteClock: Sendable {
    /// Time elapsed since an arbitrary fixed origin; never decreases.
    func now() -> Duration
    /// Suspends for `duration`; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
    /// The wall-clock instant now: what a JWT's `iat` states and what a `Retry-After` (a UNIX time) is compared with.
    func wallTime() -> ReceiptDate
}

/// The system's monotonic clock (`ContinuousClock`): the default a caller chooses outside tests.
public struct SystemRemoteClock: RemoteClock {
    private let origin: ContinuousClock.Instant
    private let clock = ContinuousClock()

    public init() { origin = clock.now }

    public func now() -> Duration { clock.now - origin }

    public func sleep(for duration: Duration) async throws {
        try await clock.sleep(for: duration)
    }

    public func wallTime() -> ReceiptDate { ReceiptDate.systemNow() }
}
