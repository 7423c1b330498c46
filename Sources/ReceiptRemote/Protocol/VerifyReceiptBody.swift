@_spi(Fuzzing) public import ReceiptModel
import ReceiptVerification

/// The body of a verifyReceipt response this package answers (the server's `/verifyReceipt`), written in
/// Apple's key order. (``VerifyReceiptResponse`` is the other direction: Apple's answer, parsed.)
///
/// `{"status": 0, "environment": …, "receipt": {…}, "latest_receipt_info": […], "latest_receipt": …}`
/// for a valid receipt; `{"status": N}` otherwise, as Apple answers errors.
public enum VerifyReceiptBody {
    /// The body of a verifyReceipt answer, whoever decided it: the one renderer of Apple's shape.
    ///
    /// Which body ``VerifyReceiptStatus/body(of:status:)`` says: Apple's own, passed through when Apple decided; the
    /// receipt in Apple's shape for a status 0 decided locally (with `supplement`'s verified facts when there are
    /// some); else the status alone.
    /// - Parameters:
    ///   - status: the status answered, computed once by the caller (``VerifyReceiptStatus/status(of:endpoint:acceptsAnyEnvironment:)``).
    ///   - excludeOldTransactions: keep only the newest entry of each subscription in `latest_receipt_info`,
    ///     whatever the entries came from.
    ///   - receiptData: what to echo as `latest_receipt` (the request's receipt data when it gave the shared
    ///     secret, as Apple does), written only when `latest_receipt_info` has entries.
    public static func answer(
        _ result: AttributedVerdict, status: Int, requestDate: ReceiptDate, excludeOldTransactions: Bool,
        receiptData: ArraySlice<UInt8>?, supplement: ReceiptSupplement? = nil
    ) -> [UInt8] {
        answer(
            result, status: status, requestDate: requestDate, excludeOldTransactions: excludeOldTransactions,
            receiptData: receiptData, supplement: supplement, renderings: nil)
    }

    /// The same answer, with the `in_app` entries of a receipt answered before copied from `renderings` (the
    /// server's, kept across requests) instead of rendered again.
    package static func answer(
        _ result: AttributedVerdict, status: Int, requestDate: ReceiptDate, excludeOldTransactions: Bool,
        receiptData: ArraySlice<UInt8>?, supplement: ReceiptSupplement?, renderings: RenderedPurchasesCache?
    ) -> [UInt8] {
        switch VerifyReceiptStatus.body(of: result, status: status) {
        case .apple(let body):
            return body
        case .receipt(let receipt, let environment):
            if let supplement {
                return valid(
                    payload: receipt.payload, environment: environment.rawValue, requestDate: requestDate,
                    supplement: supplement, excludingOld: excludeOldTransactions, receiptData: receiptData)
            }
            let latest = LatestReceiptInfo.positions(in: receipt.payload, excludingOld: excludeOldTransactions)
            return valid(
                payload: receipt.payload, environment: environment.rawValue, requestDate: requestDate,
                latest: latest.isEmpty ? nil : .positions(latest),
                latestReceipt: latest.isEmpty ? nil : receiptData, renderings: renderings)
        case .statusOnly:
            return Self.status(status)
        }
    }

    /// The same answer, given the receipt data to echo as an array, as callers passed it before it became a slice of
    /// the request.
    @_disfavoredOverload
    public static func answer(
        _ result: AttributedVerdict, status: Int, requestDate: ReceiptDate, excludeOldTransactions: Bool,
        receiptData: [UInt8]?, supplement: ReceiptSupplement? = nil
    ) -> [UInt8] {
        answer(
            result, status: status, requestDate: requestDate, excludeOldTransactions: excludeOldTransactions,
            receiptData: receiptData?[...], supplement: supplement)
    }

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
    @_spi(Fuzzing) public static func valid(
        payload: ReceiptPayload, environment: String, requestDate: ReceiptDate,
        latestReceiptInfo: [InAppPurchase]?, latestReceipt: ArraySlice<UInt8>?
    ) -> [UInt8] {
        valid(
            payload: payload, environment: environment, requestDate: requestDate,
            latest: latestReceiptInfo.map { .purchases($0) }, latestReceipt: latestReceipt)
    }

    /// The same, with `latest_receipt_info` as a ``LatestReceiptInfo/Selection``: the server's own answer names
    /// positions in the receipt's `in_app`.
    package static func valid(
        payload: ReceiptPayload, environment: String, requestDate: ReceiptDate,
        latest: LatestReceiptInfo.Selection?, latestReceipt: ArraySlice<UInt8>?,
        renderings: RenderedPurchasesCache? = nil
    ) -> [UInt8] {
        let rendered = LatestReceiptInfo.renderedOnce(payload, latestCount: latest?.count, renderings: renderings)
        let entries = LatestReceiptInfo.reservation(payload, latestCount: latest?.count ?? 0, rendered: rendered)
        var writer = JSONWriter(capacity: 4096 + entries + (latestReceipt?.count ?? 0))
        writer.beginObject()
        writer.field("status", 0)
        writer.field("environment", environment)
        writer.key("receipt")
        AppleReceiptJSON.write(payload, requestDate: requestDate, rendered: rendered, to: &writer)
        if let latest {
            writer.key("latest_receipt_info")
            LatestReceiptInfo.write(latest, of: payload, reusing: rendered, to: &writer)
        }
        if let latestReceipt {
            writer.field("latest_receipt", utf8: latestReceipt)
        }
        writer.endObject()
        return writer.bytes
    }

    /// The status-0 body for an app receipt whose subscriptions `supplement` knows more about: the receipt's own
    /// auto-renewable entries (one the supplement knows better in its place), then the supplement's newer
    /// transactions, as `latest_receipt_info`; its renewal states as `pending_renewal_info`.
    static func valid(
        payload: ReceiptPayload, environment: String, requestDate: ReceiptDate, supplement: ReceiptSupplement,
        excludingOld: Bool, receiptData: ArraySlice<UInt8>?
    ) -> [UInt8] {
        let entries = LatestReceiptInfo.entries(in: payload, supplement: supplement, excludingOld: excludingOld)
        var writer = JSONWriter(capacity: 4096 + 2 * payload.encoded.count + (receiptData?.count ?? 0))
        writer.beginObject()
        writer.field("status", 0)
        writer.field("environment", environment)
        writer.key("receipt")
        AppleReceiptJSON.write(payload, requestDate: requestDate, to: &writer)
        writer.key("latest_receipt_info")
        writer.beginArray()
        for entry in entries {
            switch entry {
            case .purchase(let purchase): AppleReceiptJSON.write(purchase, to: &writer)
            case .record(let record): record.write(to: &writer)
            }
        }
        writer.endArray()
        if !supplement.renewals.isEmpty {
            writer.key("pending_renewal_info")
            writer.beginArray()
            for renewal in supplement.renewals { renewal.write(to: &writer) }
            writer.endArray()
        }
        if let receiptData, !entries.isEmpty { writer.field("latest_receipt", utf8: receiptData) }
        writer.endObject()
        return writer.bytes
    }
}
