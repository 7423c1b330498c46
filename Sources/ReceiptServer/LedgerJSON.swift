import BER
package import ReceiptIntake
@_spi(Fuzzing) package import ReceiptLedger
@_spi(Fuzzing) package import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// The ledger's values as the server and the CLI answer them: the audit command's lines, `/v1/transactions/{id}`,
/// `/v1/entitlements`, the `ledger` member of a `/v1/verify` answer, `/v1/sync`'s answer and a backfill's
/// report. (How the ledger stores its lists is the ledger's own `LedgerColumnJSON`.)
package enum LedgerJSON {
    /// `{"new_transaction_ids":[…],"known_transaction_ids":[…],"conflicts":[…]}`: the `ledger` member of a
    /// `/v1/verify` answer.
    package static func write(outcome: LedgerOutcome, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("new_transaction_ids")
        LedgerColumnJSON.write(ids: outcome.newTransactionIDs, to: &writer)
        writer.key("known_transaction_ids")
        LedgerColumnJSON.write(ids: outcome.knownTransactionIDs, to: &writer)
        writer.key("conflicts")
        LedgerColumnJSON.write(conflicts: outcome.conflicts, to: &writer)
        writer.endObject()
    }

    /// One audit line: `{"sequence","time","endpoint","receipt_sha256","verdict","reason","decided_by",
    /// "account","new_transaction_ids","conflicts"}` (`reason` and `account` null when absent).
    package static func line(_ entry: AuditEntry) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.field("sequence", entry.sequence)
        writer.field("time", entry.time.description)
        writer.field("endpoint", entry.endpoint)
        writer.field("receipt_sha256", entry.receiptSHA256)
        writer.field("verdict", entry.verdict.rawValue)
        optional("reason", entry.reason?.description, to: &writer)
        writer.field("decided_by", entry.decidedBy.rawValue)
        optional("account", entry.account, to: &writer)
        writer.key("new_transaction_ids")
        LedgerColumnJSON.write(ids: entry.newTransactionIDs, to: &writer)
        writer.key("conflicts")
        LedgerColumnJSON.write(conflicts: entry.conflicts, to: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// One `webhooks list` line: `{"id","type","key","created_at","attempts","state","last_error"}` (`last_error`
    /// null before a failed attempt). Never the body.
    package static func line(_ event: LedgerEvent) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.field("id", event.id)
        writer.field("type", event.kind.rawValue)
        writer.field("key", event.key)
        writer.field("created_at", event.createdAt.description)
        writer.field("attempts", Int64(event.attempts))
        writer.field("state", event.state.rawValue)
        optional("last_error", event.lastError, to: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// `GET /v1/transactions/{id}`: the record with its owner (`account`, null when unbound). Dates are
    /// milliseconds as strings, as Apple writes them.
    package static func transaction(_ transaction: LedgerTransaction, owner: String?) -> [UInt8] {
        var writer = JSONWriter(capacity: 768)
        writer.beginObject()
        writer.field("transaction_id", transaction.transactionID)
        writer.field("original_transaction_id", transaction.originalTransactionID)
        writer.field("product_id", transaction.productID)
        writer.field("kind", transaction.kind.rawValue)
        writer.field("bundle_id", transaction.bundleID)
        writer.field("environment", transaction.environment?.rawValue ?? "")
        milliseconds("purchase_date_ms", transaction.purchaseDate, to: &writer)
        milliseconds("expires_date_ms", transaction.expiresDate, to: &writer)
        milliseconds("cancellation_date_ms", transaction.cancellationDate, to: &writer)
        optional("web_order_line_item_id", transaction.webOrderLineItemID, to: &writer)
        optional("app_account_token", transaction.appAccountToken, to: &writer)
        milliseconds("signed_date_ms", transaction.signedDate, to: &writer)
        writer.field("source", transaction.source.rawValue)
        writer.field("first_seen", transaction.firstSeen.description)
        writer.field("last_seen", transaction.lastSeen.description)
        optional("account", owner, to: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// `GET /v1/entitlements`: `{"account","at","entitlements":[{"product_id","original_transaction_id",
    /// "kind","state"[,"expires_date_ms"][,"grace_period_expires_date_ms"][,"auto_renew_status",
    /// "auto_renew_product_id"]},…]}`.
    package static func entitlements(_ entitlements: [Entitlement], account: String, at instant: ReceiptDate) -> [UInt8]
    {
        var writer = JSONWriter(capacity: 256 + 160 * entitlements.count)
        writer.beginObject()
        writer.field("account", account)
        writer.field("at", instant.description)
        writer.key("entitlements")
        writer.beginArray()
        for entitlement in entitlements {
            writer.beginObject()
            writer.field("product_id", entitlement.productID)
            writer.field("original_transaction_id", entitlement.originalTransactionID)
            writer.field("kind", entitlement.kind.rawValue)
            writer.field("bundle_id", entitlement.bundleID)
            writer.field("environment", entitlement.environment?.rawValue ?? "")
            writer.field("state", entitlement.state.rawValue)
            if let expiry = entitlement.expiresDate {
                writer.field("expires_date_ms", String(expiry.millisecondsSince1970))
            }
            if let end = entitlement.gracePeriodExpiresDate {
                writer.field("grace_period_expires_date_ms", String(end.millisecondsSince1970))
            }
            if let status = entitlement.autoRenewStatus { writer.field("auto_renew_status", status) }
            optional("auto_renew_product_id", entitlement.autoRenewProductID, to: &writer)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    private static func optional(_ name: String, _ value: String?, to writer: inout JSONWriter) {
        writer.key(name)
        if let value { writer.string(value) } else { writer.null() }
    }

    private static func milliseconds(_ name: String, _ date: ReceiptDate?, to writer: inout JSONWriter) {
        if let date { writer.field(name, String(date.millisecondsSince1970)) }
    }

    /// A history sync's answer (`POST /v1/sync`, `receipt-server sync`).
    package static func sync(_ answer: SyncAnswer) -> [UInt8] {
        var writer = JSONWriter(
            capacity: 256 + 24 * (answer.newTransactionIDs.count + answer.knownTransactionIDs.count))
        writer.beginObject()
        writer.field("synced", Int64(answer.synced))
        strings("new_transaction_ids", answer.newTransactionIDs, to: &writer)
        strings("known_transaction_ids", answer.knownTransactionIDs, to: &writer)
        failures(answer.failed, to: &writer)
        writer.key("environment")
        if let environment = answer.environment { writer.string(environment.rawValue) } else { writer.null() }
        writer.field("bundle_id", answer.bundleID)
        writer.key("transaction_id")
        if let id = answer.transactionID { writer.string(id) } else { writer.null() }
        if let note = answer.note { writer.field("note", note) }
        writer.endObject()
        return writer.bytes
    }

    /// A notification backfill's report (`receipt-server notifications backfill`).
    package static func backfill(_ report: BackfillReport) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + 40 * report.applied.count)
        writer.beginObject()
        writer.field("bundle_id", report.bundleID)
        writer.field("environment", report.environment.rawValue)
        writer.field("since", report.since.description)
        writer.field("until", report.until.description)
        writer.field("pages", Int64(report.pages))
        writer.field("seen", Int64(report.seen))
        strings("applied", report.applied, to: &writer)
        writer.field("duplicates", Int64(report.duplicates))
        failures(report.failed, to: &writer)
        writer.endObject()
        return writer.bytes
    }

    /// `"name": ["…", …]`.
    private static func strings(_ name: String, _ values: [String], to writer: inout JSONWriter) {
        writer.key(name)
        writer.beginArray()
        for value in values { writer.string(value) }
        writer.endArray()
    }

    /// `"failed": [{"index", "reason", "message"}, …]`: the items a walk of Apple's history did not record.
    private static func failures(_ failed: [SyncAnswer.Failure], to writer: inout JSONWriter) {
        writer.key("failed")
        writer.beginArray()
        for failure in failed {
            writer.beginObject()
            writer.field("index", Int64(failure.index))
            writer.field("reason", failure.reason)
            writer.field("message", failure.message)
            writer.endObject()
        }
        writer.endArray()
    }
}
