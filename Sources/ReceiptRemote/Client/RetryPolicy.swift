/// How often and how patiently a failed verifyReceipt attempt is repeated: exponential backoff with
/// jitter, bounded by an attempt count (and by the client's overall deadline).
public struct RetryPolicy: Sendable, Hashable {
    /// The most HTTP attempts per call, the first included (a 21007/21008 hop is not a retry and is
    /// not counted here).
    public var maximumAttempts: Int
    /// The delay before the first retry, before jitter.
    public var initialBackoff: Duration
    /// The longest delay between attempts, before jitter.
    public var maximumBackoff: Duration
    /// The factor by which the delay grows after each retry.
    public var multiplier: Double

    public init(
        maximumAttempts: Int = 4, initialBackoff: Duration = .milliseconds(200), maximumBackoff: Duration = .seconds(5),
        multiplier: Double = 2
    ) {
        self.maximumAttempts = max(1, maximumAttempts)
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.multiplier = max(1, multiplier)
    }

    /// The delay before retry number `retry` (1 for the first), with "equal jitter": half the
    /// exponential delay, plus `random` (0 ≤ random < 1) times the other half, so callers that failed
    /// together do not retry together.
    package func delay(beforeRetry retry: Int, random: Double) -> Duration {
        let exponent = Double(max(0, retry - 1))
        let base = min(Self.seconds(initialBackoff) * pow(multiplier, exponent), Self.seconds(maximumBackoff))
        let fraction = min(max(random, 0), 1)
        let seconds = base / 2 + base / 2 * fraction
        return .nanoseconds(Int64(seconds * 1_000_000_000))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `base` raised to `exponent` without Foundation.
    private func pow(_ base: Double, _ exponent: Double) -> Double {
        var result = 1.0
        var remaining = Int(exponent)
        while remaining > 0 && result < 1e12 {
            result *= base
            remaining -= 1
        }
        return result
    }
}
