import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// Turns a verified receipt's purchase records into ledger transactions seen at one instant.
struct TransactionRecorder {
    let time: ReceiptDate
    let catalogue: ProductCatalogue

    /// A receipt verification's transactions: none unless it is valid; none for a receipt of Xcode's StoreKit
    /// testing (trusted only with the opt-in), which is signed with a key that ships with Xcode and so is verified
    /// but never recorded as purchases; else those of the receipt, or of Apple's answer when Apple decided.
    func transactions(of result: AttributedVerdict) -> [LedgerTransaction] {
        let verdict = result.verdict
        guard verdict.isValid, verdict.environment != .xcode else { return [] }
        if result.decidedBy == .remote { return transactions(decidedRemotely: result) }
        return transactions(in: verdict.receipt, environment: verdict.environment)
    }

    /// A receipt verified locally: its purchase records, signed when Apple created the receipt.
    func transactions(in receipt: ReceiptInput?, environment: ReceiptEnvironment?) -> [LedgerTransaction] {
        switch receipt {
        case .appReceipt(let receipt)?:
            transactions(in: receipt.payload, environment: environment?.rawValue ?? "")
        case .iOS6(let receipt)?:
            transactions(in: receipt, environment: environment?.rawValue ?? receipt.environment ?? "")
        case nil:
            []
        }
    }

    func transactions(in payload: ReceiptPayload, environment: String) -> [LedgerTransaction] {
        let bundleID = payload.bundleID ?? ""
        return payload.inAppPurchases.compactMap { purchase in
            var transaction = make(
                id: purchase.transactionID, original: purchase.originalTransactionID, product: purchase.productID,
                reported: ProductKind(purchase.productType), bundleID: bundleID, environment: environment,
                purchase: purchase.purchaseDate, expires: purchase.expiresDate,
                cancellation: purchase.cancellationDate, webOrder: purchase.webOrderLineItemID.map(String.init),
                source: .receipt)
            // Apple signs a receipt when it creates it: what it shows is Apple's statement as of then.
            transaction?.signedDate = payload.creationDate
            return transaction
        }
    }

    func transactions(in receipt: IOS6TransactionReceipt, environment: String) -> [LedgerTransaction] {
        let info = receipt.purchaseInfo
        return [
            make(
                id: info.transactionID, original: info.originalTransactionID, product: info.productID,
                reported: .unknown, bundleID: info.bundleID ?? "", environment: environment,
                purchase: info.purchaseDate,
                expires: info.expiresDate, cancellation: nil, webOrder: info.webOrderLineItemID, source: .iOS6Receipt)
        ].compactMap { $0 }
    }

    /// A receipt Apple decided (the remote fallback): the receipt's own purchase records, decoded from exactly the
    /// bytes Apple was sent, and the renewals Apple's answer adds that can be tied to them
    /// (``renewals(in:tiedTo:environment:)``). Apple's answer is JSON over TLS that no one signed: it never
    /// replaces what the receipt says. When the receipt was proven locally (Apple asked only for a subscription's
    /// current state), its records are signed facts; when it was not (the local verdict was inconclusive), they
    /// stand on Apple's word and are recorded as `apple_verify_receipt`, for the next signed statement to
    /// supersede.
    func transactions(decidedRemotely result: AttributedVerdict) -> [LedgerTransaction] {
        let local = result.localVerdict
        var own: [LedgerTransaction]
        if local.isValid {
            own = transactions(in: local.receipt, environment: local.environment)
        } else {
            own = transactions(in: local.receipt, environment: result.verdict.environment).map {
                var unsigned = $0
                unsigned.source = .appleVerifyReceipt
                unsigned.signedDate = nil
                return unsigned
            }
        }
        guard let response = result.appleResponse else { return own }
        let environment = response.effectiveEnvironment ?? result.verdict.environment?.rawValue ?? ""
        return own + renewals(in: response, tiedTo: own, environment: environment)
    }

    /// What Apple's unsigned answer may add: an entry of `in_app` or `latest_receipt_info` the receipt does not
    /// list, under one of the receipt's own original transaction ids, for a product the receipt lists under that
    /// id, with an expiry (a subscription period), in the receipt's bundle (Apple's answer names the same one, or
    /// the fallback would not have let it decide) and environment. It is recorded as `apple_verify_receipt`, without a
    /// cancellation (an unsigned word never revokes anything), and the ledger records it only while its purchase
    /// is unbound or bound to the account the verification names.
    func renewals(in response: VerifyReceiptResponse, tiedTo own: [LedgerTransaction], environment: String)
        -> [LedgerTransaction]
    {
        guard let bundleID = own.first?.bundleID, !bundleID.isEmpty, response.bundleID == bundleID else { return [] }
        // The receipt's own environment, when it names one, is the renewals' too: Apple's word cannot make a
        // Sandbox subscription's renewal a Production (paid) one.
        if let stated = own.first?.environment, stated.rawValue != environment { return [] }
        var products: [String: Set<String>] = [:]
        for transaction in own {
            products[transaction.originalTransactionID, default: []].insert(transaction.productID)
        }
        var listed = Set(own.map(\.transactionID))
        var added: [LedgerTransaction] = []
        for info in response.inApp + response.latestReceiptInfo {
            guard let id = info.transactionID, !listed.contains(id), let original = info.originalTransactionID,
                let product = info.productID, products[original]?.contains(product) == true,
                let expires = info.expiresDate,
                let transaction = make(
                    id: id, original: original, product: product, reported: .unknown, bundleID: bundleID,
                    environment: environment, purchase: info.purchaseDate, expires: expires, cancellation: nil,
                    webOrder: info.json.text("web_order_line_item_id"), source: .appleVerifyReceipt)
            else { continue }
            listed.insert(id)
            added.append(transaction)
        }
        return added
    }

    /// A verified StoreKit 2 transaction (on its own or nested in a notification).
    ///
    /// A transaction the customer upgraded from (`isUpgraded`) is recorded without its expiry: its successor (same
    /// original transaction id, a higher-level product) carries the subscription from the upgrade on, so the
    /// superseded one must not stand as the subscription's latest expiry.
    func transaction(_ jws: JWSTransaction, source: LedgerSource) -> LedgerTransaction? {
        var transaction = make(
            id: jws.transactionID, original: jws.originalTransactionID, product: jws.productID,
            reported: ProductKind(jwsType: jws.type), bundleID: jws.bundleID ?? "",
            environment: jws.environment?.rawValue ?? "",
            purchase: jws.purchaseDate, expires: jws.isUpgraded == true ? nil : jws.expiresDate,
            cancellation: jws.revocationDate,
            webOrder: jws.webOrderLineItemID, source: source)
        transaction?.appAccountToken = LedgerLimits.text(jws.appAccountToken, maximum: LedgerLimits.maximumTokenLength)
        transaction?.signedDate = jws.signedDate
        return transaction
    }

    /// A verified StoreKit 2 renewal info, ordered by its signed date; `nil` without a usable original transaction id
    /// or a signed date.
    func renewal(_ jws: JWSRenewalInfo) -> LedgerRenewal? {
        guard let original = jws.originalTransactionID, LedgerLimits.isIdentifier(original),
            let signed = jws.signedDate
        else { return nil }
        let product = { (value: String?) in LedgerLimits.text(value, maximum: LedgerLimits.maximumProductIDLength) }
        return LedgerRenewal(
            originalTransactionID: original, productID: product(jws.productID),
            autoRenewProductID: product(jws.autoRenewProductID), autoRenewStatus: jws.autoRenewStatus?.rawValue,
            isInBillingRetryPeriod: jws.isInBillingRetryPeriod, gracePeriodExpiresDate: jws.gracePeriodExpiresDate,
            expirationIntent: jws.expirationIntent?.rawValue, renewalDate: jws.renewalDate,
            offerType: jws.offerType?.rawValue,
            offerIdentifier: LedgerLimits.text(jws.offerIdentifier, maximum: LedgerLimits.maximumTokenLength),
            environment: jws.environment.flatMap { ReceiptEnvironment(rawValue: $0.rawValue) },
            signedDate: signed, updated: time)
    }

    /// One transaction, or `nil` when its ids or product id are outside ``LedgerLimits`` (it cannot be Apple's). An
    /// absent original transaction id is the transaction id; an absent product id is empty; a bundle id or
    /// environment outside the limits is recorded empty.
    private func make(
        id: String?, original: String?, product: String?, reported: ProductKind, bundleID: String,
        environment: String, purchase: ReceiptDate?, expires: ReceiptDate?, cancellation: ReceiptDate?,
        webOrder: String?, source: LedgerSource
    ) -> LedgerTransaction? {
        guard let id, LedgerLimits.isIdentifier(id) else { return nil }
        let original = original.flatMap { $0.isEmpty ? nil : $0 }
        if let original, !LedgerLimits.isIdentifier(original) { return nil }
        if let product, !LedgerLimits.isText(product, maximum: LedgerLimits.maximumProductIDLength) { return nil }
        let product = product ?? ""
        return LedgerTransaction(
            transactionID: id, originalTransactionID: original ?? id, productID: product,
            kind: catalogue.kind(of: product, reported: reported),
            bundleID: LedgerLimits.text(bundleID, maximum: LedgerLimits.maximumProductIDLength) ?? "",
            environment: ReceiptEnvironment(rawValue: environment),
            purchaseDate: purchase, expiresDate: expires, cancellationDate: cancellation,
            webOrderLineItemID: webOrder.flatMap { LedgerLimits.isIdentifier($0) ? $0 : nil }, source: source,
            firstSeen: time, lastSeen: time)
    }
}
