@_spi(Fuzzing) import ReceiptModel
import ReceiptVerification

/// Writes the events ``BatchDecision`` decides: each ``LedgerEvent`` with its key and its body, the JSON the
/// receiver gets (docs/webhooks.md), fixed here at commit.
///
/// Every body starts with the same members, in this order: `id`, `type`, `created_at` (RFC 3339, UTC, with
/// milliseconds), `environment` (`Production`, `Sandbox`, `Xcode` or null), `bundle_id`, `account` (the purchase's
/// owner, null when unbound; for `ownership.conflict` the verifying account), `original_transaction_id`,
/// `transaction_id`, `product_id`; then the members of its type. Dates are milliseconds since 1970 as JSON numbers;
/// an absent value is null, never left out.
enum LedgerEventComposer {
    /// The key that orders a purchase's events: its owner's when it is bound, else its own.
    static func key(owner: String?, originalTransactionID: String) -> String {
        owner.map { "account:" + $0 } ?? "original:" + originalTransactionID
    }

    /// `purchase.new`: `transaction` was recorded for the first time.
    static func purchaseNew(_ transaction: LedgerTransaction, owner: String?, at time: ReceiptDate) -> LedgerEvent {
        compose(.purchaseNew, about: transaction, owner: owner, at: time) { body in
            body.field("kind", transaction.kind.rawValue)
            body.field("purchase_date_ms", transaction.purchaseDate)
            body.field("expires_date_ms", transaction.expiresDate)
            body.field("source", transaction.source.rawValue)
        }
    }

    /// `purchase.refunded` (the cancellation `revocation` was recorded) or `purchase.refund_reversed` (the one
    /// recorded before, `revocation`, was lifted). The ledger keeps no revocation reason: it is null.
    static func refund(
        _ transaction: LedgerTransaction, revocation: ReceiptDate?, reversed: Bool, owner: String?,
        at time: ReceiptDate
    ) -> LedgerEvent {
        compose(reversed ? .purchaseRefundReversed : .purchaseRefunded, about: transaction, owner: owner, at: time) {
            body in
            body.field("revocation_date_ms", revocation)
            body.key("revocation_reason")
            body.null()
        }
    }

    /// `entitlement.changed`: the purchase's entitlement went from `previous` (nil: it had none) to `entitlement`'s
    /// state. `transactionID` is the verification's transaction under the purchase that changed it (nil when only
    /// its renewal state did).
    static func entitlementChanged(
        _ entitlement: Entitlement, previous: Entitlement.State?, transactionID: String?, owner: String?,
        at time: ReceiptDate
    ) -> LedgerEvent {
        let id = LedgerEvent.newID(at: time)
        var body = header(
            id, .entitlementChanged, at: time, environment: entitlement.environment, bundleID: entitlement.bundleID,
            account: owner, originalTransactionID: entitlement.originalTransactionID, transactionID: transactionID,
            productID: entitlement.productID)
        body.field("previous_state", previous?.rawValue)
        body.field("state", entitlement.state.rawValue)
        body.field("expires_date_ms", entitlement.expiresDate)
        body.endObject()
        return LedgerEvent(
            id: id, kind: .entitlementChanged,
            key: key(owner: owner, originalTransactionID: entitlement.originalTransactionID), createdAt: time,
            body: body.bytes)
    }

    /// `ownership.conflict`: the verification naming `account` named a purchase bound to another account.
    /// `transaction` is the verification's first transaction under it (its app, environment and product).
    static func conflict(
        _ conflict: LedgerConflict, account: String, transaction: LedgerTransaction?, at time: ReceiptDate
    ) -> LedgerEvent {
        let id = LedgerEvent.newID(at: time)
        var body = header(
            id, .ownershipConflict, at: time, environment: transaction?.environment, bundleID: transaction?.bundleID,
            account: account, originalTransactionID: conflict.originalTransactionID,
            transactionID: conflict.transactionIDs.first, productID: transaction?.productID)
        body.field("owner_account", conflict.owner)
        body.key("transaction_ids")
        body.beginArray()
        for id in conflict.transactionIDs { body.string(id) }
        body.endArray()
        body.endObject()
        return LedgerEvent(
            id: id, kind: .ownershipConflict,
            key: key(owner: conflict.owner, originalTransactionID: conflict.originalTransactionID), createdAt: time,
            body: body.bytes)
    }

    /// An event about one transaction: the common members from it, then `members`.
    private static func compose(
        _ kind: LedgerEvent.Kind, about transaction: LedgerTransaction, owner: String?, at time: ReceiptDate,
        _ members: (inout JSONWriter) -> Void
    ) -> LedgerEvent {
        let id = LedgerEvent.newID(at: time)
        var body = header(
            id, kind, at: time, environment: transaction.environment, bundleID: transaction.bundleID, account: owner,
            originalTransactionID: transaction.originalTransactionID, transactionID: transaction.transactionID,
            productID: transaction.productID)
        members(&body)
        body.endObject()
        return LedgerEvent(
            id: id, kind: kind, key: key(owner: owner, originalTransactionID: transaction.originalTransactionID),
            createdAt: time, body: body.bytes)
    }

    /// The common members, the object left open for the type's own.
    private static func header(
        _ id: String, _ kind: LedgerEvent.Kind, at time: ReceiptDate, environment: ReceiptEnvironment?,
        bundleID: String?, account: String?, originalTransactionID: String, transactionID: String?,
        productID: String?
    ) -> JSONWriter {
        var body = JSONWriter(capacity: 512)
        body.beginObject()
        body.field("id", id)
        body.field("type", kind.rawValue)
        body.field("created_at", timestamp(time))
        body.field("environment", environment?.rawValue)
        body.field("bundle_id", bundleID)
        body.field("account", account)
        body.field("original_transaction_id", originalTransactionID)
        body.field("transaction_id", transactionID)
        body.field("product_id", productID)
        return body
    }

    /// `2026-11-26T10:00:00.123Z`: RFC 3339 in UTC, always with milliseconds (``ReceiptDate``'s description leaves
    /// them out when they are zero).
    static func timestamp(_ time: ReceiptDate) -> String {
        let text = time.description
        guard !text.contains("."), text.hasSuffix("Z") else { return text }
        return String(text.dropLast()) + ".000Z"
    }
}

extension JSONWriter {
    /// `"name":"value"`, or `"name":null`.
    fileprivate mutating func field(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    /// `"name":milliseconds`, or `"name":null`.
    fileprivate mutating func field(_ name: String, _ date: ReceiptDate?) {
        key(name)
        if let date { number(date.millisecondsSince1970) } else { null() }
    }
}
