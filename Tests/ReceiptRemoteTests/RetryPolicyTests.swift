import Testing

@testable import ReceiptRemote

/// Backoff before each retry: exponential, capped, with equal jitter.
@Suite struct RetryPolicyTests {
    @Test(arguments: [(1, 0.0, 500), (1, 1.0, 1000), (2, 0.5, 1500), (3, 0.5, 3000), (10, 0.5, 6000)])
    func backoffGrowsExponentiallyWithEqualJitter(_ retry: Int, _ random: Double, _ milliseconds: Int64) {
        let policy = RetryPolicy(maximumAttempts: 10, initialBackoff: .seconds(1), maximumBackoff: .seconds(8))
        #expect(policy.delay(beforeRetry: retry, random: random) == .milliseconds(milliseconds))
    }
}
