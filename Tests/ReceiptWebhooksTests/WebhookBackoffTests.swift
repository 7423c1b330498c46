import ReceiptWebhooks
import Testing

@Suite struct WebhookBackoffTests {
    /// (failed attempts, jitter, expected delay in milliseconds) with the defaults: 1 s doubling up to an hour, the
    /// jitter lengthening each step by up to half of it, the hour never passed.
    @Test(arguments: [
        (1, 0.0, 1_000), (1, 0.5, 1_250), (2, 0.0, 2_000), (3, 0.0, 4_000), (11, 0.0, 1_024_000),
        // 2^12 s passes the hour: capped, whatever the jitter.
        (12, 0.0, 2_048_000), (12, 0.999_999, 3_071_998), (13, 0.0, 3_600_000), (13, 0.999_999, 3_600_000),
        (1_000_000, 0.0, 3_600_000),
        // Out-of-range inputs are clamped, never a negative or a longer delay.
        (0, 0.0, 1_000), (-5, 0.0, 1_000), (13, 7.0, 3_600_000), (1, -1.0, 1_000),
    ])
    func growsExponentiallyWithinItsBounds(attempts: Int, jitter: Double, milliseconds: Int64) {
        #expect(WebhookBackoff().delay(afterAttempts: attempts, jitter: jitter) == .milliseconds(milliseconds))
    }

    @Test func neverExceedsTheMaximumWhateverTheAttempts() {
        let backoff = WebhookBackoff(initial: .milliseconds(20), maximum: .milliseconds(100))
        for attempts in [1, 2, 3, 4, 5, 50, Int.max] {
            let delay = backoff.delay(afterAttempts: attempts, jitter: 0.99)
            #expect(delay <= .milliseconds(100))
            #expect(delay >= .milliseconds(20))
        }
    }
}
