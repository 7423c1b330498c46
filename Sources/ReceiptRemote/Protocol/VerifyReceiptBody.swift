public import ReceiptModel

/// The body of a verifyReceipt response this package answers (the server's `/verifyReceipt`), written in
/// Apple's key order. (``VerifyReceiptResponse`` is the other direction: Apple's answer, parsed.)
///
/// `{"status": 0, "environment": …, "receipt": {…}, "latest_receipt_info": […], "latest_receipt": …}`
/// for a valid receipt; `{"status": N}` otherwise, as Apple answers errors.
public enum VerifyReceiptBody {
    /// A status-only body, e.g. `{"status":21002}`; 21100–21199 carry `is-retryable` as Apple's do.
    public static func status(_ status: Int) -> [UInt8] {
        var writer = JSONWriter(capacity: 32)
        writer.beginObject()
        writer.field("status", Int64(status))
        if (21100...21199).contains(status) { writer.field("is-retryable", true) }
        writer.endObject()
        return writer.bytes
    }

    /// The status-0 body for an app receipt.
    /// - Parameters:
    ///   - environment: `Production`, `Sandbox` or `Xcode`.
    ///   - requestDate: when the server answered; rendered as `receipt.request_date*`.
    ///   - latestReceiptInfo: the auto-renewable entries, or `nil` to leave the key out.
    ///   - latestReceipt: the receipt data to echo as `latest_receipt`, or `nil`.
    public static func valid(
        payload: ReceiptPayload, environment: String, requestDate: ReceiptDate,
        latestReceiptInfo: [InAppPurchase]?, latestReceipt: [UInt8]?
    ) -> [UInt8] {
        let purchases = payload.inAppPurchases.count + (latestReceiptInfo?.count ?? 0)
        let entries = AppleReceiptJSON.reservation(entries: purchases, recordBytes: 2 * payload.encoded.count)
        var writer = JSONWriter(capacity: 1024 + entries + (latestReceipt?.count ?? 0))
        let rendered = LatestReceiptInfo.renderedOnce(payload, latest: latestReceiptInfo)
        writer.beginObject()
        writer.field("status", 0)
        writer.field("environment", environment)
        writer.key("receipt")
        AppleReceiptJSON.write(payload, requestDate: requestDate, rendered: rendered, to: &writer)
        if let latestReceiptInfo {
            writer.key("latest_receipt_info")
            LatestReceiptInfo.write(latestReceiptInfo, reusing: rendered, to: &writer)
        }
        if let latestReceipt {
            writer.field("latest_receipt", utf8: latestReceipt[...])
        }
        writer.endObject()
        return writer.bytes
    }
}
