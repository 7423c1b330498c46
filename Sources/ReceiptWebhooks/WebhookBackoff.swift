/// How long an event waits before its next attempt: exponential from ``initial`` (doubling per failed attempt) up to
/// ``maximum``, with jitter so that events failing together (a receiver that was down) do not all come back at once.
///
/// The delay after the `n`th failed attempt is `step = min(maximum, initial · 2ⁿ⁻¹)` lengthened by up to half of
/// itself at random, and never more than ``maximum``: so never less than the exponential step (the first retry waits
/// at least ``initial``, 1 s by default) and never more than an hour by default.
public struct WebhookBackoff: Sendable, Hashable {
    /// The delay after the first failure (before jitter).
    public var initial: Duration
    /// The longest delay.
    public var maximum: Duration

    /// The default: 1 s, doubling, up to an hour.
    public init(initial: Duration = .seconds(1), maximum: Duration = .seconds(3600)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay after `attempts` failed attempts (1 after the first).
    /// - Parameters:
    ///   - attempts: failed attempts so far, counting the one that just failed; below 1 counts as 1.
    ///   - jitter: a number in `[0, 1)` (the deliverer draws it at random; tests pass fixed ones); outside, clamped.
    public func delay(afterAttempts attempts: Int, jitter: Double) -> Duration {
        let initialMilliseconds = Self.milliseconds(initial)
        let maximumMilliseconds = max(Self.milliseconds(maximum), initialMilliseconds)
        // Doubling stops at the maximum, so the shift never overflows (2^62 ms is far beyond any maximum).
        var step = max(initialMilliseconds, 1)
        var doublings = max(attempts, 1) - 1
        while doublings > 0, step < maximumMilliseconds {
            step *= 2
            doublings -= 1
        }
        step = min(step, maximumMilliseconds)
        let factor = 1 + 0.5 * min(max(jitter, 0), 1)
        return .milliseconds(min(maximumMilliseconds, Int64((Double(step) * factor).rounded(.down))))
    }

    /// `duration` in whole milliseconds, at least 0.
    static func milliseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return max(0, parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000)
    }
}
