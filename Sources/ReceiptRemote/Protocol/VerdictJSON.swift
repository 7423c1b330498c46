import BER
@_spi(Fuzzing) public import ReceiptModel
import ReceiptVerification

/// The verdict JSON: one renderer for `verify-local --format json` (one line per file) and the body of the
/// server's `/v1/verify`. Both write the same members the same way (the reasons, the chain, the decoded
/// receipt in Apple's shape, the decoding error); they differ in which members they add and in order,
/// which each documents.
public enum VerdictJSON {
    /// verify-local's line for one file: `{"file", "verdict", "reasons", "status", "environment",
    /// "validation_time", "validated_at", "chain", ["decided_by", "remote_status", "remote_error",
    /// "local_verdict"], "kind", "receipt"}`, with `error` instead of `kind` and `receipt` when decoding
    /// failed.
    /// - Parameters:
    ///   - result: the verdict; `nil` with `--decode-only` (then only the receipt or error is written).
    ///   - attributed: `true` when the remote fallback is on: adds who decided, Apple's status or failure,
    ///     and the local verdict's outcome.
    ///   - receipt: the decoded receipt, or `error` why the input did not decode (with `--decode-only`
    ///     there is no verdict to hold them).
    /// - Returns: the line's UTF-8 bytes, without a line ending.
    public static func report(
        file: String, _ result: AttributedVerdict?, attributed: Bool, receipt: ReceiptInput?, error: ReceiptError?
    ) -> [UInt8] {
        var entries = 0
        if case .appReceipt(let decoded)? = receipt {
            let payload = decoded.payload
            entries = AppleReceiptJSON.reservation(
                entries: payload.inAppPurchases.count, recordBytes: payload.encoded.count)
        }
        var writer = JSONWriter(capacity: 2048 + entries)
        writer.beginObject()
        writer.field("file", file)
        if let result {
            let verdict = result.verdict
            let shown = attributed ? verdict : result.localVerdict
            writer.field("verdict", shown.outcome.rawValue)
            writeReasons(shown.reasons, to: &writer)
            let status = VerifyReceiptStatus.status(of: attributed ? result : .local(result.localVerdict))
            writer.field("status", Int64(status))
            if let environment = shown.environment { writer.field("environment", environment.rawValue) }
            writer.field("validation_time", verdict.validationTime.name)
            if let instant = verdict.validationInstant { writer.field("validated_at", instant.description) }
            writeChain(verdict.chain, to: &writer)
            if attributed {
                writer.field("decided_by", result.decidedBy.rawValue)
                if let response = result.appleResponse { writer.field("remote_status", Int64(response.status)) }
                if let error = result.remoteError { writer.field("remote_error", error.code.description) }
                writer.field("local_verdict", result.localVerdict.outcome.rawValue)
            }
        }
        writeReceipt(receipt, error: error, requestDate: nil, detail: true, to: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// The body of `/v1/verify`:
    ///
    /// ```json
    /// {"verdict":"valid","status":0,"decided_by":"local","environment":"Sandbox",
    ///  "validation_time":"receiptCreation","validated_at":"2020-07-22T17:39:08Z",
    ///  "validated_at_ms":"1595439548000","request_date":"…","request_date_ms":"…",
    ///  "reasons":[],"chain":["CN=…",…],"kind":"app_receipt","receipt":{…},"latest_receipt_info":[…]}
    /// ```
    /// `apple_response` carries Apple's whole answer when Apple decided; `error` replaces `kind` and
    /// `receipt` when the bytes could not be decoded.
    /// - Parameters:
    ///   - requestDate: when the server answered.
    ///   - excludeOldTransactions: trims `latest_receipt_info` as verifyReceipt does.
    ///   - appending: writes members of a layer above (the ledger's `ledger`) last.
    @_spi(Fuzzing) public static func response(
        _ result: AttributedVerdict, requestDate: ReceiptDate, excludeOldTransactions: Bool,
        appending: (inout JSONWriter) -> Void = { _ in }
    ) -> [UInt8] {
        let verdict = result.verdict
        var latest: (payload: ReceiptPayload, positions: [Int])?
        var rendered: RenderedPurchases?
        var entries = 0
        if case .appReceipt(let receipt)? = verdict.receipt {
            let positions = LatestReceiptInfo.positions(in: receipt.payload, excludingOld: excludeOldTransactions)
            latest = (receipt.payload, positions)
            rendered = LatestReceiptInfo.renderedOnce(receipt.payload, latestCount: positions.count)
            entries = LatestReceiptInfo.reservation(receipt.payload, latestCount: positions.count, rendered: rendered)
        }
        var writer = JSONWriter(capacity: 4096 + entries)
        writer.beginObject()
        writer.field("verdict", verdict.outcome.rawValue)
        writer.field("status", Int64(VerifyReceiptStatus.status(of: result)))
        writer.field("decided_by", result.decidedBy.rawValue)
        if let environment = verdict.environment { writer.field("environment", environment.rawValue) }
        writer.field("validation_time", verdict.validationTime.name)
        if let instant = verdict.validationInstant {
            writer.field("validated_at", instant.description)
            writer.field("validated_at_ms", String(instant.millisecondsSince1970))
        }
        writer.field("request_date", requestDate.description)
        writer.field("request_date_ms", String(requestDate.millisecondsSince1970))
        writeReasons(verdict.reasons, to: &writer)
        writeChain(verdict.chain, to: &writer)
        writeReceipt(
            verdict.receipt, error: verdict.decodingError, requestDate: requestDate, detail: false,
            rendered: rendered, to: &writer)
        if let latest, !latest.positions.isEmpty {
            writer.key("latest_receipt_info")
            LatestReceiptInfo.write(.positions(latest.positions), of: latest.payload, reusing: rendered, to: &writer)
        }
        if result.decidedBy == .remote, let response = result.appleResponse {
            writer.key("apple_response")
            writer.raw(response.body)
        }
        appending(&writer)
        writer.endObject()
        return writer.bytes
    }

    // MARK: - Shared members

    /// `"reasons":[{"code","message"},…]`.
    static func writeReasons(_ reasons: [Reason], to writer: inout JSONWriter) {
        writer.key("reasons")
        writer.beginArray()
        for reason in reasons {
            writer.beginObject()
            writer.field("code", reason.code.description)
            writer.field("message", reason.message)
            writer.endObject()
        }
        writer.endArray()
    }

    /// `"chain":["CN=…",…]`, leaf first.
    static func writeChain(_ chain: [String], to writer: inout JSONWriter) {
        writer.key("chain")
        writer.beginArray()
        for subject in chain { writer.string(subject) }
        writer.endArray()
    }

    /// `"kind"` and `"receipt"` (Apple's `receipt` object; iOS 6 purchase-info keys with `_` for `-`, as
    /// verifyReceipt shows them), or `"error":{"code","message"[,"detail"]}` when there is no receipt.
    static func writeReceipt(
        _ receipt: ReceiptInput?, error: ReceiptError?, requestDate: ReceiptDate?, detail: Bool,
        rendered: RenderedPurchases? = nil, to writer: inout JSONWriter
    ) {
        switch (receipt, error) {
        case (.appReceipt(let receipt)?, _):
            writer.field("kind", "app_receipt")
            writer.key("receipt")
            AppleReceiptJSON.write(receipt.payload, requestDate: requestDate, rendered: rendered, to: &writer)
        case (.iOS6(let receipt)?, _):
            writer.field("kind", "ios6_transaction_receipt")
            writer.key("receipt")
            writer.beginObject()
            for (key, value) in receipt.purchaseInfo.entries.sorted(by: { $0.key < $1.key }) {
                writer.field(IOS6TransactionReceipt.responseKey(key), value)
            }
            writer.endObject()
        case (nil, let error?):
            writer.key("error")
            writer.beginObject()
            writer.field("code", error.code.description)
            writer.field("message", error.reason)
            if detail, let underlying = error.underlying { writer.field("detail", underlying.code.description) }
            writer.endObject()
        case (nil, nil):
            break
        }
    }
}
