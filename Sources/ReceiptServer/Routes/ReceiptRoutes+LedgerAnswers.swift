import Hummingbird
import Logging
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// `/verifyReceipt` answered from the ledger: what verified notifications and StoreKit 2 JWS taught it about a
/// receipt's subscriptions after the receipt was signed.
///
/// Which source answers:
/// 1. The receipt is verified locally, as always; only a `valid` app receipt with auto-renewable purchases goes on.
/// 2. The ledger is asked what it holds under the receipt's subscriptions (original transaction ids). It *knows
///    more* when it holds a transaction the receipt does not list that expires later than the receipt's latest
///    for that subscription, a refund of a transaction the receipt lists without one, or renewal info Apple signed
///    after the receipt was created.
/// 3. When it knows more, the answer is local: the receipt's own entries (a refunded one from the ledger's record,
///    with its cancellation), then the ledger's newer transactions in
///    `latest_receipt_info` (Apple's shape), and `pending_renewal_info` from its verified renewal info. The remote
///    fallback is not consulted (`X-Receipt-Decided-By: local`).
/// 4. Otherwise the receipt goes the usual way: local, or Apple when the fallback's rules say so.
/// Nothing unverified ever reaches the answer: the ledger holds transactions only from valid receipts, verified
/// JWS and verified notifications.
extension ReceiptRoutes {
    /// What the ledger knows beyond a receipt.
    struct LedgerKnowledge {
        var newer: [LedgerTransaction]
        var renewals: [LedgerRenewal]
        /// The receipt's own transactions the ledger knows more about (a refund the receipt does not show), by id:
        /// written from the ledger's record in place of the receipt's entry.
        var overrides: [String: LedgerTransaction] = [:]
    }

    /// A valid subscription receipt's side of the comparison: its listed auto-renewable transactions and, per
    /// subscription (original transaction id), its latest expiry.
    struct ReceiptSubscriptions {
        var latestExpiry: [String: ReceiptDate] = [:]
        var listed: [String: InAppPurchase] = [:]
        var created: ReceiptDate

        /// `nil` unless `verdict` is a valid app receipt with auto-renewable purchases.
        init?(_ verdict: Verdict) {
            guard verdict.isValid, case .appReceipt(let receipt)? = verdict.receipt else { return nil }
            created = receipt.payload.creationDate ?? ReceiptDate(clampingMillisecondsSince1970: 0)
            for purchase in receipt.payload.inAppPurchases where LatestReceiptInfo.isAutoRenewable(purchase) {
                guard let original = purchase.originalTransactionID ?? purchase.transactionID else { continue }
                if let id = purchase.transactionID { listed[id] = purchase }
                let expiry = purchase.expiresDate ?? ReceiptDate(clampingMillisecondsSince1970: 0)
                latestExpiry[original] = max(latestExpiry[original] ?? expiry, expiry)
            }
            guard !latestExpiry.isEmpty else { return nil }
        }

        /// The original transaction ids to ask the ledger about.
        var originalTransactionIDs: [String] { latestExpiry.keys.sorted() }

        /// What `held` knows beyond the receipt; `nil` when nothing.
        func knowledge(_ held: LedgerSubscriptions) -> LedgerKnowledge? {
            var overrides: [String: LedgerTransaction] = [:]
            for transaction in held.transactions {
                guard let purchase = listed[transaction.transactionID] else { continue }
                if transaction.cancellationDate != nil, purchase.cancellationDate == nil {
                    overrides[transaction.transactionID] = transaction
                }
            }
            let newer = held.transactions.filter { transaction in
                guard listed[transaction.transactionID] == nil, let expiry = transaction.expiresDate,
                    let receiptLatest = latestExpiry[transaction.originalTransactionID]
                else { return false }
                return expiry > receiptLatest
            }
            let created = created
            let renewals = held.renewals.filter { $0.signedDate > created }
            guard !newer.isEmpty || !renewals.isEmpty || !overrides.isEmpty else { return nil }
            return LedgerKnowledge(
                newer: newer.sorted {
                    ($0.purchaseDate ?? created, $0.transactionID) < ($1.purchaseDate ?? created, $1.transactionID)
                },
                renewals: held.renewals, overrides: overrides)
        }
    }

    /// How a `/verifyReceipt` answer learns what the ledger knows.
    enum LedgerConsultation {
        /// It does not: no ledger, not a valid subscription receipt, or nothing the ledger may know more about.
        case none
        /// Read before deciding (the fallback would otherwise have asked Apple).
        case read(LedgerKnowledge)
        /// Read in the transaction that records the verification (``LedgerEntry/readsSubscriptions``): no read
        /// of its own, and it sees what the same commit wrote.
        case withRecord(ReceiptSubscriptions)

        /// The knowledge to answer with, once the verification is recorded with `outcome`.
        func knowledge(after outcome: LedgerOutcome?) -> LedgerKnowledge? {
            switch self {
            case .none: return nil
            case .read(let knowledge): return knowledge
            case .withRecord(let subscriptions): return outcome?.subscriptions.flatMap(subscriptions.knowledge)
            }
        }

        /// The original transaction ids the record reads back.
        var readsSubscriptions: [String] {
            guard case .withRecord(let subscriptions) = self else { return [] }
            return subscriptions.originalTransactionIDs
        }
    }

    /// Decides a `/verifyReceipt` request with the ledger's knowledge: locally first. For a valid subscription
    /// receipt whose subscriptions have lapsed (the fallback would ask Apple), the ledger is read first; when it
    /// knows more, the local verdict answers with it, and Apple is asked only when it knows nothing newer. For
    /// any other valid subscription receipt, when the ledger may hold subscription state, the record that
    /// follows reads it back.
    func decideWithLedger(_ receiptData: [UInt8], _ asked: FallbackRequest, context: some RequestContext)
        async throws(ServerError) -> (AttributedVerdict, LedgerConsultation)
    {
        guard let ledger else { return (try await decide(receiptData, asked), .none) }
        var local = asked
        local.allowsRemote = false
        let decided = try await decide(receiptData, local)
        let wouldAskApple = decided.trigger != nil && asked.allowsRemote
        // Without a reason to read the ledger, the receipt's subscriptions are not even listed.
        guard wouldAskApple || ledger.mayHoldSubscriptionState else { return (decided, .none) }
        guard let subscriptions = ReceiptSubscriptions(decided.verdict) else {
            return wouldAskApple ? (try await decide(receiptData, asked), .none) : (decided, .none)
        }
        // Not asking Apple means the ledger may hold subscription state (the guard above): the record reads it back.
        guard wouldAskApple else { return (decided, .withRecord(subscriptions)) }
        do {
            let held = try await ledger.subscriptions(originalTransactionIDs: subscriptions.originalTransactionIDs)
            if let knowledge = subscriptions.knowledge(held) { return (decided, .read(knowledge)) }
        } catch {
            // The usual path decides; the ledger write that follows reports the store's state.
            context.logger.warning("ledger read failed; answering from the receipt", metadata: ["error": "\(error)"])
        }
        return (try await decide(receiptData, asked), .none)
    }

    /// A valid receipt's verifyReceipt body with the ledger's newer transactions after the receipt's own in
    /// `latest_receipt_info`, and `pending_renewal_info` from the ledger's verified renewal info.
    static func verifyReceiptBody(
        _ receipt: AppReceipt, environment: String, requestDate: ReceiptDate, knowledge: LedgerKnowledge,
        latestReceipt: [UInt8]?
    ) -> [UInt8] {
        let own = LatestReceiptInfo.purchases(in: receipt.payload)
        var writer = JSONWriter(capacity: 4096 + 2 * receipt.payload.encoded.count + (latestReceipt?.count ?? 0))
        writer.beginObject()
        writer.field("status", 0)
        writer.field("environment", environment)
        writer.key("receipt")
        AppleReceiptJSON.write(receipt.payload, requestDate: requestDate, to: &writer)
        writer.key("latest_receipt_info")
        writer.beginArray()
        for purchase in own {
            if let id = purchase.transactionID, let held = knowledge.overrides[id] {
                write(held, to: &writer)
            } else {
                AppleReceiptJSON.write(purchase, to: &writer)
            }
        }
        for transaction in knowledge.newer { write(transaction, to: &writer) }
        writer.endArray()
        if !knowledge.renewals.isEmpty {
            writer.key("pending_renewal_info")
            writer.beginArray()
            for renewal in knowledge.renewals { write(renewal, to: &writer) }
            writer.endArray()
        }
        if let latestReceipt { writer.field("latest_receipt", utf8: latestReceipt[...]) }
        writer.endObject()
        return writer.bytes
    }

    /// A ledger transaction as a `latest_receipt_info` entry (Apple writes every value as a string).
    static func write(_ transaction: LedgerTransaction, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("quantity", "1")
        writer.field("product_id", transaction.productID)
        writer.field("transaction_id", transaction.transactionID)
        writer.field("original_transaction_id", transaction.originalTransactionID)
        AppleReceiptJSON.writeDate(
            transaction.purchaseDate, "purchase_date", "purchase_date_ms", "purchase_date_pst", to: &writer)
        AppleReceiptJSON.writeDate(
            transaction.expiresDate, "expires_date", "expires_date_ms", "expires_date_pst", to: &writer)
        AppleReceiptJSON.writeDate(
            transaction.cancellationDate, "cancellation_date", "cancellation_date_ms", "cancellation_date_pst",
            to: &writer)
        if let id = transaction.webOrderLineItemID { writer.field("web_order_line_item_id", id) }
        if let token = transaction.appAccountToken { writer.field("app_account_token", token) }
        writer.field("in_app_ownership_type", "PURCHASED")
        writer.endObject()
    }

    /// A renewal state as a `pending_renewal_info` entry.
    static func write(_ renewal: LedgerRenewal, to writer: inout JSONWriter) {
        writer.beginObject()
        if let product = renewal.autoRenewProductID { writer.field("auto_renew_product_id", product) }
        writer.field("original_transaction_id", renewal.originalTransactionID)
        if let product = renewal.productID { writer.field("product_id", product) }
        if let status = renewal.autoRenewStatus { writer.field("auto_renew_status", String(status)) }
        if let retry = renewal.isInBillingRetryPeriod { writer.field("is_in_billing_retry_period", retry ? "1" : "0") }
        if let intent = renewal.expirationIntent { writer.field("expiration_intent", String(intent)) }
        // Apple's names for a pending offer: a promotional offer's id, an offer code's reference name.
        if let offer = renewal.offerIdentifier {
            switch renewal.offerType.flatMap(OfferType.init(rawValue:)) {
            case .promotional?: writer.field("promotional_offer_id", offer)
            case .offerCode?: writer.field("offer_code_ref_name", offer)
            default: break
            }
        }
        AppleReceiptJSON.writeDate(
            renewal.gracePeriodExpiresDate, "grace_period_expires_date", "grace_period_expires_date_ms",
            "grace_period_expires_date_pst", to: &writer)
        writer.endObject()
    }
}
