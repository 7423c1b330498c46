public import ReceiptIntake
import ReceiptLedger
@_spi(Fuzzing) import ReceiptModel

/// A `POST /v1/sync` body, parsed but not acted on: `{"receipt_data": base64}` or `{"transaction_id": id}`, with
/// optional `bundle_id` and `account`. Every member is read once (a repeated one is refused) and exactly one subject
/// must be given.
@_spi(Fuzzing) public struct SyncRequest: Sendable {
    /// The receipt (base64 text as sent) or the transaction id.
    public let subject: SyncCall.Subject
    public let bundleID: String?
    public let account: String?

    /// Parses a body.
    /// - Throws: ``ServerError`` `server.invalid_json`, `server.duplicate_member`, `server.missing_receipt_data`
    ///   (neither subject), `server.invalid_option` (both, or a member outside its limits).
    public init(parsing body: [UInt8]) throws(ServerError) {
        let json = try RequestJSON(parsing: body)
        let receipt = try json.string("receipt_data")
        let transaction = try json.string("transaction_id")
        switch (receipt, transaction) {
        case (let receipt?, nil):
            subject = .receipt(Array(receipt), isText: true)
        case (nil, let transaction?):
            let id = String(decoding: transaction, as: UTF8.self)
            guard LedgerLimits.isIdentifier(id) else {
                throw ServerError(.invalidOption, "transaction_id is 1 to 64 letters, digits, '.', '-' or '_'")
            }
            subject = .transactionID(id)
        case (nil, nil):
            throw ServerError(.missingReceiptData, "the body names neither receipt_data nor transaction_id")
        case (_?, _?):
            throw ServerError(.invalidOption, "the body names both receipt_data and transaction_id: name one")
        }
        bundleID = try json.string("bundle_id").map { String(decoding: $0, as: UTF8.self) }
        if let bundleID, !LedgerLimits.isText(bundleID, maximum: LedgerLimits.maximumProductIDLength) {
            throw ServerError(.invalidOption, "bundle_id is not a bundle id")
        }
        account = try json.string("account").map { String(decoding: $0, as: UTF8.self) }
        if let account, !LedgerEntry.isValidAccount(account) {
            throw ServerError(.invalidOption, "account takes 1 to 256 bytes of UTF-8")
        }
    }
}
