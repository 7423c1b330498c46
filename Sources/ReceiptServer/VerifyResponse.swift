public import ReceiptModel
import ReceiptVerification

/// The body of `/v1/verify`: the verdict with its reasons and evidence, who decided, and the decoded
/// receipt in Apple's shape.
///
/// ```json
/// {"verdict":"valid","status":0,"decided_by":"local","environment":"Sandbox",
///  "validation_time":"receiptCreation","validated_at":"2020-07-22T17:39:08Z",
///  "validated_at_ms":"1595439548000","request_date":"…","request_date_ms":"…",
///  "reasons":[],"chain":["CN=…",…],"kind":"app_receipt","receipt":{…},"latest_receipt_info":[…]}
/// ```
/// `apple_response` carries Apple's whole answer when the remote fallback decided; `error` replaces
/// `kind` and `receipt` when the bytes could not be decoded.
public enum VerifyResponse {
    /// Writes the body for `decision`.
    /// - Parameters:
    ///   - status: the status answered (Apple's when it decided, else the local verdict's).
    ///   - requestDate: when the server answered.
    ///   - excludeOldTransactions: trims `latest_receipt_info` as verifyReceipt does.
    public static func render(
        _ decision: Decision, status: Int, requestDate: ReceiptDate, excludeOldTransactions: Bool
    ) -> [UInt8] {
        let verdict = decision.verdict
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        writer.field("verdict", decision.outcome.rawValue)
        writer.field("status", Int64(status))
        writer.field("decided_by", decision.decidedBy.rawValue)
        if let environment = decision.environment {
            writer.field("environment", environment)
        }
        writer.field("validation_time", verdict.validationTime.name)
        if let instant = verdict.validationInstant {
            writer.field("validated_at", instant.description)
            writer.field("validated_at_ms", String(instant.millisecondsSince1970))
        }
        writer.field("request_date", requestDate.description)
        writer.field("request_date_ms", String(requestDate.millisecondsSince1970))
        writer.key("reasons")
        writer.beginArray()
        for reason in decision.reasons {
            writer.beginObject()
            writer.field("code", reason.code)
            writer.field("message", reason.message)
            writer.endObject()
        }
        writer.endArray()
        writer.key("chain")
        writer.beginArray()
        for subject in verdict.chain { writer.string(subject) }
        writer.endArray()
        switch decision.input {
        case .success(.appReceipt(let receipt)):
            writer.field("kind", "app_receipt")
            writer.key("receipt")
            AppleReceiptJSON.write(receipt.payload, requestDate: requestDate, to: &writer)
            let latest = LatestReceiptInfo.purchases(in: receipt.payload, excludingOld: excludeOldTransactions)
            if !latest.isEmpty {
                writer.key("latest_receipt_info")
                LatestReceiptInfo.write(latest, to: &writer)
            }
        case .success(.iOS6(let receipt)):
            writer.field("kind", "ios6_transaction_receipt")
            writer.key("receipt")
            writer.beginObject()
            // verifyReceipt shows iOS 6 purchase-info keys with `_` for `-`.
            for (key, value) in receipt.purchaseInfo.entries.sorted(by: { $0.key < $1.key }) {
                writer.field(String(key.map { $0 == "-" ? "_" : $0 }), value)
            }
            writer.endObject()
        case .failure(let error):
            writer.key("error")
            writer.beginObject()
            writer.field("code", error.code.description)
            writer.field("message", error.reason)
            writer.endObject()
        }
        if let remote = decision.remote {
            writer.key("apple_response")
            writer.raw(remote.body)
        }
        writer.endObject()
        return writer.bytes
    }
}
