@_spi(Fuzzing) import ReceiptModel
import ReceiptVerification

extension AppleStandIn {
    /// The faithful answer (`docs/receipt-format.md` §4): the status Apple would give, and for status 0 the
    /// `receipt` rendered by ``ReceiptModel/AppleReceiptJSON`` (or the iOS 6 shape), with
    /// `latest_receipt_info`, `pending_renewal_info` and `latest_receipt` when a good shared secret came.
    func appleAnswer(to request: RecordedRequest) -> [UInt8] {
        guard request.isJSONObject else { return Self.statusOnly(21000, request.endpoint) }
        guard let receiptData = request.receiptData,
            let input = try? ReceiptInput(bytes: Array(receiptData.utf8))
        else { return Self.statusOnly(21002, request.endpoint) }
        if let secret = configuration.sharedSecret, let password = request.password, password != secret {
            return Self.statusOnly(21004, request.endpoint)
        }
        let withLatest = request.password != nil
        let now = configuration.now?()
        switch input {
        case .appReceipt(let receipt):
            let environment = receipt.payload.receiptType.flatMap(ReceiptEnvironment.init(receiptType:))
            if let verifier = configuration.verifier, verifier.verify(receipt).outcome == .invalid {
                return Self.statusOnly(21003, request.endpoint)
            }
            switch (environment, request.endpoint) {
            case (.sandbox?, .production): return Self.statusOnly(21007, request.endpoint)
            case (.production?, .sandbox): return Self.statusOnly(21008, request.endpoint)
            case (.sandbox?, .sandbox), (.production?, .production): break
            // There is no Xcode listener; an endpoint value of .xcode answers as Apple answers the unknown.
            case (.sandbox?, .xcode), (.production?, .xcode): return Self.statusOnly(21003, request.endpoint)
            case (.xcode?, _), (nil, _): return Self.statusOnly(21003, request.endpoint)
            }
            return render(
                receipt.payload, environment: environment ?? .production, receiptData: receiptData,
                withLatest: withLatest, excludeOld: request.excludeOldTransactions == true, now: now)
        case .iOS6(let receipt):
            let sandbox = receipt.environment == "Sandbox"
            if let verifier = configuration.verifier, verifier.verify(receipt).outcome == .invalid {
                return Self.statusOnly(21003, request.endpoint)
            }
            if sandbox && request.endpoint == .production { return Self.statusOnly(21007, request.endpoint) }
            if !sandbox && request.endpoint == .sandbox { return Self.statusOnly(21008, request.endpoint) }
            return renderIOS6(receipt, receiptData: receiptData, withLatest: withLatest, now: now)
        }
    }

    static func statusOnly(_ status: Int, _ endpoint: ReceiptEnvironment) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("status", Int64(status))
        writer.field("environment", endpoint == .production ? "Production" : "Sandbox")
        writer.endObject()
        return writer.bytes
    }

    private func render(
        _ payload: ReceiptPayload, environment: ReceiptEnvironment, receiptData: String, withLatest: Bool,
        excludeOld: Bool, now: ReceiptDate?
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: receiptData.utf8.count * 3 + 4096)
        writer.beginObject()
        writer.field("status", 0)
        writer.field("environment", environment.rawValue)
        writer.key("receipt")
        AppleReceiptJSON.write(payload, requestDate: now, to: &writer)
        let subscriptions = payload.inAppPurchases.filter { $0.expiresDate != nil }
        if withLatest && !subscriptions.isEmpty {
            var latest = subscriptions
            if excludeOld {
                // Only the newest transaction of each subscription group (keyed here by original transaction).
                var newest: [String: InAppPurchase] = [:]
                for purchase in subscriptions {
                    let key = purchase.originalTransactionID ?? purchase.transactionID ?? ""
                    if let current = newest[key],
                        (current.expiresDate ?? .init(clampingMillisecondsSince1970: 0))
                            >= (purchase.expiresDate ?? .init(clampingMillisecondsSince1970: 0))
                    {
                        continue
                    }
                    newest[key] = purchase
                }
                latest = Array(newest.values)
            }
            writer.key("latest_receipt_info")
            writer.beginArray()
            for purchase in latest.sorted(by: {
                ($0.purchaseDate ?? .init(clampingMillisecondsSince1970: 0))
                    > ($1.purchaseDate ?? .init(clampingMillisecondsSince1970: 0))
            }) {
                AppleReceiptJSON.write(purchase, to: &writer)
            }
            if let renewedUntil = configuration.renewedUntil {
                for original in Set(subscriptions.compactMap(\.originalTransactionID)).sorted() {
                    let product = subscriptions.last { $0.originalTransactionID == original }?.productID ?? ""
                    writer.beginObject()
                    writer.field("quantity", "1")
                    writer.field("product_id", product)
                    writer.field("transaction_id", original + "-renewal")
                    writer.field("original_transaction_id", original)
                    writer.field("expires_date_ms", String(renewedUntil.millisecondsSince1970))
                    writer.field("is_trial_period", "false")
                    writer.endObject()
                }
            }
            writer.endArray()
            writer.key("pending_renewal_info")
            writer.beginArray()
            for original in Set(subscriptions.compactMap(\.originalTransactionID)).sorted() {
                let product = subscriptions.last { $0.originalTransactionID == original }?.productID ?? ""
                writer.beginObject()
                writer.field("auto_renew_product_id", product)
                writer.field("product_id", product)
                writer.field("original_transaction_id", original)
                writer.field("auto_renew_status", configuration.renewedUntil == nil ? "0" : "1")
                writer.endObject()
            }
            writer.endArray()
            writer.field("latest_receipt", receiptData)
        }
        writer.endObject()
        return writer.bytes
    }

    /// The iOS 6 shape: `receipt` is the purchase-info dictionary with `_` for `-`; 21006 when its
    /// subscription has expired at ``Configuration/now``.
    private func renderIOS6(
        _ receipt: IOS6TransactionReceipt, receiptData: String, withLatest: Bool, now: ReceiptDate?
    ) -> [UInt8] {
        var expired = false
        if let now, let expires = receipt.purchaseInfo.expiresDate, expires < now { expired = true }
        var info = JSONWriter()
        info.beginObject()
        for (key, value) in receipt.purchaseInfo.entries.sorted(by: { $0.key < $1.key }) {
            info.field(IOS6TransactionReceipt.responseKey(key), value)
        }
        info.endObject()
        var writer = JSONWriter(capacity: info.bytes.count * 2 + receiptData.utf8.count + 256)
        writer.beginObject()
        writer.key("receipt")
        writer.raw(info.bytes)
        if withLatest && receipt.purchaseInfo.expiresDate != nil {
            writer.key("latest_receipt_info")
            writer.raw(info.bytes)
            writer.field("latest_receipt", receiptData)
        }
        writer.field("status", expired ? 21006 : 0)
        writer.endObject()
        return writer.bytes
    }
}
