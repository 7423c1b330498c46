import ReceiptModel

extension ReceiptDate {
    /// This instant moved by `duration` (clamped to the representable range: these are clock readings, not input).
    func adding(_ duration: Duration) -> ReceiptDate {
        ReceiptDate(clampingMillisecondsSince1970: millisecondsSince1970 &+ WebhookBackoff.milliseconds(duration))
    }

    /// Whether more than `duration` passed from `start` to this instant.
    func isMore(than duration: Duration, after start: ReceiptDate) -> Bool {
        millisecondsSince1970 - start.millisecondsSince1970 > WebhookBackoff.milliseconds(duration)
    }
}
