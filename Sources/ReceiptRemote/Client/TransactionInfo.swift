public import ReceiptModel

/// One transaction as verifyReceipt shows it: an `in_app` entry, a `latest_receipt_info` entry, or an
/// iOS 6 `receipt` / `latest_receipt_info` object (purchase-info keys, `-` written as `_`).
///
/// The typed fields read both shapes; ``json`` keeps every key, known or not.
public struct TransactionInfo: Sendable, Hashable {
    /// The object exactly as received.
    public let json: JSONObject

    public init(json: JSONObject) { self.json = json }

    /// `product_id`.
    public var productID: String? { json.text("product_id") }
    /// `transaction_id`.
    public var transactionID: String? { json.text("transaction_id") }
    /// `original_transaction_id`.
    public var originalTransactionID: String? { json.text("original_transaction_id") }
    /// `purchase_date_ms` (iOS 6 too).
    public var purchaseDate: ReceiptDate? { Self.milliseconds(json, "purchase_date") }
    /// `expires_date_ms`; iOS 6 responses write milliseconds in `expires_date` itself.
    public var expiresDate: ReceiptDate? { Self.milliseconds(json, "expires_date") }
    /// `cancellation_date_ms`.
    public var cancellationDate: ReceiptDate? { Self.milliseconds(json, "cancellation_date") }
    /// `is_trial_period` (`"true"`/`"false"`).
    public var isTrialPeriod: Bool? { json.text("is_trial_period").flatMap(Self.bool) }

    /// `NAME_ms`, else `NAME` when it is all digits (iOS 6 shape).
    static func milliseconds(_ json: JSONObject, _ name: String) -> ReceiptDate? {
        if let text = json.text(name + "_ms"), let value = Int64(text) {
            return ReceiptDate(millisecondsSince1970: value)
        }
        if let text = json.text(name), let value = Int64(text) { return ReceiptDate(millisecondsSince1970: value) }
        return nil
    }

    static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "1": true
        case "false", "0": false
        default: nil
        }
    }
}
