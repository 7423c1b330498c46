import ReceiptWebhooks
import Testing

@Suite struct WebhookBackoffTests {
    /// (failed attempts, jitter, expected delay in milliseconds) with the defaults: 1 s doubling up to an hour, the
    /// jitter scaling each step into [half, whole).
    @Test(arguments: [
        (1, 0.0, 500), (1, 0.5, 750), (2, 0.0, 1_000), (3, 0.0, 2_000), (11, 0.0, 512_000),
        // 2^12 s passes the hour: capped.
        (13, 0.0, 1_800_000), (13, 0.999_999, 3_599_998), (1_000_000, 0.0, 1_800_000),
        // Out-of-range inputs are clamped, never a negative or a longer delay.
        (0, 0.0, 500), (-5, 0.0, 500), (13, 7.0, 3_600_000), (1, -1.0, 500),
    ])
    func growsExponentiallyWithinItsBounds(attempts: Int, jitter: Double, milliseconds: Int64) {
        #expect(WebhookBackoff().delay(afterAttempts: attempts, jitter: jitter) == .milliseconds(milliseconds))
    }

    @Test func neverExceedsTheMaximumWhateverTheAttempts() {
        let backoff = WebhookBackoff(initial: .milliseconds(20), maximum: .milliseconds(100))
        for attempts in [1, 2, 3, 4, 5, 50, Int.max] {
            let delay = backoff.delay(afterAttempts: attempts, jitter: 0.99)
            #expect(delay <= .milliseconds(100))
            #expect(delay >= .milliseconds(10))
        }
    }
}
