import BER
import ReceiptCrypto
public import ReceiptModel
public import ReceiptRemote
public import ReceiptVerification

extension LedgerEntry {
    /// The entry for one verification: the audit facts, and the transactions of the receipt when the verdict
    /// is `valid` (from the locally verified receipt, or from Apple's answer when Apple decided).
    ///
    /// A purchase record without a transaction id, or with an id or product id that is not UTF-8 or holds
    /// U+0000, cannot be a transaction Apple issued and is left out.
    /// - Parameters:
    ///   - received: the receipt as the client sent it; its decoded bytes are hashed for the audit entry.
    ///   - catalogue: the operator's product kinds, which win over the receipt's.
    public init(
        verification result: AttributedVerdict, received: [UInt8], endpoint: String, account: String?,
        time: ReceiptDate, catalogue: ProductCatalogue, onConflict: ConflictPolicy
    ) {
        let verdict = result.verdict
        var transactions: [LedgerTransaction] = []
        // A receipt of Xcode's StoreKit testing (trusted only with the opt-in) is signed with a key that ships with
        // Xcode: verified, never recorded as purchases.
        if verdict.isValid, verdict.environment != .xcode {
            let recorder = TransactionRecorder(time: time, catalogue: catalogue)
            if result.decidedBy == .remote, let response = result.appleResponse {
                transactions = recorder.transactions(in: response)
            } else {
                switch verdict.receipt {
                case .appReceipt(let receipt)?:
                    transactions = recorder.transactions(
                        in: receipt.payload, environment: verdict.environment?.rawValue ?? "")
                case .iOS6(let receipt)?:
                    transactions = recorder.transactions(
                        in: receipt, environment: verdict.environment?.rawValue ?? receipt.environment ?? "")
                case nil:
                    break
                }
            }
        }
        self.init(
            time: time, endpoint: endpoint, receiptSHA256: Self.sha256(of: verdict.receipt, received: received),
            verdict: verdict.outcome,
            reason: verdict.reason?.code.description, decidedBy: result.decidedBy.rawValue, account: account,
            transactions: transactions, onConflict: onConflict)
    }

    /// SHA-256, in hex, of the receipt's decoded bytes (its DER, or its plist text): what the client wrapped in
    /// base64, quotes or a data URL hashes the same as the raw receipt. Bytes that do not decode are hashed as
    /// received.
    public static func sha256(ofDecoded received: [UInt8]) -> String {
        sha256(of: nil, received: received)
    }

    /// The same hash, from the receipt the verifier already decoded when there is one (an app receipt's DER is
    /// kept as a slice; nothing is decoded again).
    static func sha256(of receipt: ReceiptInput?, received: [UInt8]) -> String {
        let bytes: ArraySlice<UInt8>
        if case .appReceipt(let decoded)? = receipt {
            bytes = decoded.encoded
        } else {
            bytes = (try? ReceiptInput.canonicalBytes(of: received[...]))?.bytes ?? received[...]
        }
        return Hex.encode((try? DigestAlgorithm.sha256.hash(bytes)) ?? [])
    }
}

extension LedgerEntry {
    /// The entry for one JWS verification (a StoreKit 2 signed transaction or renewal info, or a V2 notification):
    /// the audit facts, and when the verdict is `valid` the transaction, the renewal info and the notification's
    /// record (from the notification's own verified nested JWS).
    /// - Parameter received: the JWS text as received; its SHA-256 is the audit entry's digest.
    public init(
        jws verdict: JWSVerdict, received: [UInt8], endpoint: String, account: String?, time: ReceiptDate,
        catalogue: ProductCatalogue, onConflict: ConflictPolicy
    ) {
        var transactions: [LedgerTransaction] = []
        var renewals: [LedgerRenewal] = []
        var notification: LedgerNotification?
        // An Xcode-signed JWS (trusted only with the opt-in) is signed by a key any developer makes: it may be
        // verified, never recorded, or anyone could change what the ledger holds about real purchases.
        if verdict.isValid, verdict.environment != .xcode {
            let recorder = TransactionRecorder(time: time, catalogue: catalogue)
            switch verdict.payload {
            case .transaction(let jws)?:
                transactions = recorder.transaction(jws, source: .storeKit).map { [$0] } ?? []
            case .renewalInfo(let jws)?:
                renewals = recorder.renewal(jws).map { [$0] } ?? []
            case .notification(let payload)?:
                transactions =
                    verdict.verifiedTransaction.flatMap { recorder.transaction($0, source: .notification) }
                    .map { [$0] } ?? []
                renewals = verdict.verifiedRenewalInfo.flatMap { recorder.renewal($0) }.map { [$0] } ?? []
                notification = Self.notification(payload, received: time, about: transactions.first, renewals.first)
            case .appTransaction?, nil:
                break
            }
        }
        self.init(
            time: time, endpoint: endpoint,
            receiptSHA256: Hex.encode((try? DigestAlgorithm.sha256.hash(received[...])) ?? []),
            verdict: verdict.outcome, reason: verdict.reason?.code.description, decidedBy: "local", account: account,
            transactions: transactions, onConflict: onConflict)
        self.renewals = renewals
        self.notification = notification
    }

    /// A V2 notification's record: its `notificationUUID` (when it is one the stores can key on) and what it was.
    static func notification(
        _ payload: NotificationV2, received: ReceiptDate, about transaction: LedgerTransaction?,
        _ renewal: LedgerRenewal?
    ) -> LedgerNotification? {
        guard let id = payload.notificationUUID, !id.isEmpty, id.utf8.count <= LedgerNotification.maximumIDLength,
            TransactionRecorder.storable(id)
        else { return nil }
        let text = { (value: String?) in value.flatMap { TransactionRecorder.storable($0) ? $0 : nil } }
        return LedgerNotification(
            id: id, version: "2", notificationType: text(payload.notificationType?.rawValue) ?? "",
            subtype: text(payload.subtype?.rawValue),
            signedDate: payload.signedDate, received: received,
            originalTransactionID: transaction?.originalTransactionID ?? renewal?.originalTransactionID)
    }
}

/// Turns a verified receipt's purchase records into ledger transactions seen at one instant.
struct TransactionRecorder {
    let time: ReceiptDate
    let catalogue: ProductCatalogue

    func transactions(in payload: ReceiptPayload, environment: String) -> [LedgerTransaction] {
        let bundleID = payload.bundleID ?? ""
        return payload.inAppPurchases.compactMap { purchase in
            make(
                id: purchase.transactionID, original: purchase.originalTransactionID, product: purchase.productID,
                reported: ProductKind(purchase.productType), bundleID: bundleID, environment: environment,
                purchase: purchase.purchaseDate, expires: purchase.expiresDate,
                cancellation: purchase.cancellationDate, webOrder: purchase.webOrderLineItemID.map(String.init),
                source: .receipt)
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

    /// Apple's `in_app` and `latest_receipt_info`, each transaction once.
    func transactions(in response: VerifyReceiptResponse) -> [LedgerTransaction] {
        let bundleID = response.bundleID ?? ""
        let environment = response.effectiveEnvironment ?? ""
        return (response.inApp + response.latestReceiptInfo).compactMap { info in
            make(
                id: info.transactionID, original: info.originalTransactionID, product: info.productID,
                reported: .unknown, bundleID: bundleID, environment: environment, purchase: info.purchaseDate,
                expires: info.expiresDate, cancellation: info.cancellationDate,
                webOrder: info.json.text("web_order_line_item_id"), source: .appleVerifyReceipt)
        }
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
        transaction?.appAccountToken = jws.appAccountToken.flatMap {
            Self.storable($0) && $0.utf8.count <= 256 ? $0 : nil
        }
        transaction?.signedDate = jws.signedDate
        return transaction
    }

    /// A verified StoreKit 2 renewal info, ordered by its signed date; `nil` without an original transaction id or
    /// a signed date.
    func renewal(_ jws: JWSRenewalInfo) -> LedgerRenewal? {
        guard let original = jws.originalTransactionID, Self.storable(original), !original.isEmpty,
            let signed = jws.signedDate
        else { return nil }
        let text = { (value: String?) in value.flatMap { Self.storable($0) ? $0 : nil } }
        return LedgerRenewal(
            originalTransactionID: original, productID: text(jws.productID),
            autoRenewProductID: text(jws.autoRenewProductID), autoRenewStatus: jws.autoRenewStatus?.rawValue,
            isInBillingRetryPeriod: jws.isInBillingRetryPeriod, gracePeriodExpiresDate: jws.gracePeriodExpiresDate,
            expirationIntent: jws.expirationIntent?.rawValue, renewalDate: jws.renewalDate,
            offerType: jws.offerType?.rawValue,
            offerIdentifier: text(jws.offerIdentifier).flatMap { $0.utf8.count <= 256 ? $0 : nil },
            environment: text(jws.environment?.rawValue) ?? "", signedDate: signed, updated: time)
    }

    private func make(
        id: String?, original: String?, product: String?, reported: ProductKind, bundleID: String,
        environment: String, purchase: ReceiptDate?, expires: ReceiptDate?, cancellation: ReceiptDate?,
        webOrder: String?, source: LedgerSource
    ) -> LedgerTransaction? {
        guard let id, Self.storable(id), !id.isEmpty else { return nil }
        let original = original.flatMap { Self.storable($0) && !$0.isEmpty ? $0 : nil } ?? id
        let product = product.flatMap { Self.storable($0) ? $0 : nil } ?? ""
        return LedgerTransaction(
            transactionID: id, originalTransactionID: original, productID: product,
            kind: catalogue.kind(of: product, reported: reported), bundleID: Self.storable(bundleID) ? bundleID : "",
            environment: environment, purchaseDate: purchase, expiresDate: expires, cancellationDate: cancellation,
            webOrderLineItemID: webOrder.flatMap { Self.storable($0) ? $0 : nil }, source: source, firstSeen: time,
            lastSeen: time)
    }

    /// Text both stores hold as is: no U+0000.
    static func storable(_ text: String) -> Bool { !text.utf8.contains(0) }
}
