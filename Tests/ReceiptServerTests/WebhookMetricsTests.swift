import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import ReceiptWebhooks
import Testing

/// The webhook series of `/metrics`: attempts by type and result, and the queue's gauges read at render time.
@Suite struct WebhookMetricsTests {
    static func samples(_ text: [UInt8]) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in String(decoding: text, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    @Test func attemptsAndTheQueueLandInTheirSeries() async {
        let metrics = ServerMetrics()
        let now = ReceiptDate(clampingMillisecondsSince1970: 1_795_000_042_500)
        let oldest = ReceiptDate(clampingMillisecondsSince1970: 1_795_000_000_000)
        metrics.observeWebhookQueue { (3, oldest, now) }
        for result in [WebhookAttempt.Result.retried, .retried, .delivered] {
            metrics.recordWebhookAttempt(
                WebhookAttempt(eventID: "evt_1", kind: .purchaseNew, result: result, httpStatus: nil, error: nil))
        }
        metrics.recordWebhookAttempt(
            WebhookAttempt(eventID: "evt_2", kind: .purchaseRefunded, result: .parked, httpStatus: 500, error: nil))
        await metrics.refreshWebhookQueue()
        let samples = Self.samples(
            metrics.exposition(
                cache: ReceiptVerifier().cacheStatistics, renderings: RenderedPurchasesCache().statistics, inFlight: 0))

        #expect(samples[#"receipt_server_webhook_attempts_total{type="purchase.new",result="retried"}"#] == 2)
        #expect(samples[#"receipt_server_webhook_attempts_total{type="purchase.new",result="delivered"}"#] == 1)
        #expect(samples[#"receipt_server_webhook_attempts_total{type="purchase.refunded",result="parked"}"#] == 1)
        #expect(samples["receipt_server_webhook_queue_depth"] == 3)
        #expect(samples["receipt_server_webhook_oldest_pending_age_seconds"] == 42.5)
    }

    @Test func withoutWebhooksTheQueueSeriesAreAbsent() {
        let metrics = ServerMetrics()
        let samples = Self.samples(
            metrics.exposition(
                cache: ReceiptVerifier().cacheStatistics, renderings: RenderedPurchasesCache().statistics, inFlight: 0))
        #expect(!samples.keys.contains { $0.hasPrefix("receipt_server_webhook") })
    }
}
