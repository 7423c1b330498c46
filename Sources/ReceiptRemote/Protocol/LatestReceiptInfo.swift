@_spi(Fuzzing) public import ReceiptModel

/// verifyReceipt's `latest_receipt_info`, derived from the receipt alone.
///
/// Apple builds this array from its own transaction history; locally only the receipt is known, so
/// it holds the receipt's auto-renewable transactions and nothing that happened after the receipt's
/// creation date (renewals, refunds, billing retry, grace periods: `docs/receipt-format.md` §5).
///
/// Order: by `purchase_date` ascending, then by `transaction_id`. That is the order of Apple's real
/// response in `../shared/receipts/rc-sampleapp-sandbox-2020.verifyReceipt.json` (oldest first,
/// whereas its `in_app` keeps receipt order). Apple does not document an order; clients should not
/// depend on one.
@_spi(Fuzzing) public enum LatestReceiptInfo {
    /// `true` when the purchase is an auto-renewable subscription: product type 3 (attribute 1707),
    /// or, for receipts without a product type, an expiry date.
    package static func isAutoRenewable(_ purchase: InAppPurchase) -> Bool {
        if let type = purchase.productType { return type == .autoRenewableSubscription }
        return purchase.expiresDate != nil
    }

    /// The entries, in Apple's order.
    /// - Parameter excludingOld: verifyReceipt's `exclude-old-transactions`: keep only the newest
    ///   transaction of each subscription (same `original_transaction_id`).
    public static func purchases(in payload: ReceiptPayload, excludingOld: Bool = false) -> [InAppPurchase] {
        let all = payload.inAppPurchases
        return positions(in: payload, excludingOld: excludingOld).map { all[$0] }
    }

    /// The entries as positions in ``ReceiptPayload/inAppPurchases``, in Apple's order: for an answer that writes
    /// them from there, without a copy of each purchase (and a retain and release of its references).
    package static func positions(in payload: ReceiptPayload, excludingOld: Bool = false) -> [Int] {
        let all = payload.inAppPurchases
        // Positions, not the records, are filtered and sorted: a record is a large value (five slices), and a
        // sort moves its elements many times. Read through the buffer, in place: an array's element read copies
        // all its references.
        var selected = all.withUnsafeBufferPointer { all in all.indices.filter { isAutoRenewable(all[$0]) } }
        if excludingOld {
            var newest: [ArraySlice<UInt8>: Int] = [:]
            for index in selected {
                let purchase = all[index]
                let key = purchase.originalTransactionIDBytes ?? purchase.transactionIDBytes ?? []
                if let kept = newest[key], !precedes(all[kept], purchase) { continue }
                newest[key] = index
            }
            selected = Array(newest.values)
        }
        // The dates are read once: a comparison that passed records would copy (retain and release) each.
        let dates = all.withUnsafeBufferPointer { all in
            all.indices.map { all[$0].purchaseDate?.millisecondsSince1970 ?? .min }
        }
        selected.sort { left, right in
            if dates[left] != dates[right] { return dates[left] < dates[right] }
            return precedes(id: all[left].transactionIDBytes, id: all[right].transactionIDBytes)
        }
        return selected
    }

    /// Earlier purchase date first; equal dates by transaction id (numeric when both are numbers).
    static func precedes(_ lhs: InAppPurchase, _ rhs: InAppPurchase) -> Bool {
        let left = lhs.purchaseDate?.millisecondsSince1970 ?? .min
        let right = rhs.purchaseDate?.millisecondsSince1970 ?? .min
        if left != right { return left < right }
        return precedes(id: lhs.transactionIDBytes, id: rhs.transactionIDBytes)
    }

    /// Transaction ids in order: a shorter one first (numerically smaller, when both are numbers), else by bytes.
    private static func precedes(id lhs: ArraySlice<UInt8>?, id rhs: ArraySlice<UInt8>?) -> Bool {
        let leftID = lhs ?? []
        let rightID = rhs ?? []
        if leftID.count != rightID.count { return leftID.count < rightID.count }
        return leftID.lexicographicallyPrecedes(rightID)
    }

    /// Which entries the array lists, in order.
    package enum Selection {
        /// These purchases, given whole.
        case purchases([InAppPurchase])
        /// The purchases at these positions of the receipt's own `in_app` (``positions(in:excludingOld:)``), written
        /// from there: no purchase is copied out.
        case positions([Int])

        package var count: Int {
            switch self {
            case .purchases(let purchases): purchases.count
            case .positions(let positions): positions.count
            }
        }
    }

    /// Writes the array as the next value of `writer`, each entry exactly as an `in_app` entry.
    /// - Parameters:
    ///   - payload: the receipt whose `in_app` a ``Selection/positions(_:)`` selection names.
    ///   - rendered: the receipt's `in_app` entries already rendered, to copy instead of rendering.
    package static func write(
        _ selection: Selection, of payload: ReceiptPayload, reusing rendered: RenderedPurchases? = nil,
        to writer: inout JSONWriter
    ) {
        switch selection {
        case .purchases(let purchases):
            AppleReceiptJSON.write(purchases, reusing: rendered, to: &writer)
        case .positions(let positions):
            AppleReceiptJSON.write(payload.inAppPurchases, at: positions, reusing: rendered, to: &writer)
        }
    }

    /// Bytes to reserve for a receipt's `in_app` entries and the `latest_receipt_info` entries taken from them. With
    /// the entries rendered once, a bound that holds: each entry and its comma at most twice (the receipt's own
    /// members come out of the caller's few kilobytes); else ``AppleReceiptJSON/reservation(entries:recordBytes:)``'s
    /// estimate. 256 MiB at most either way, so a caller may add its own few kilobytes without overflow.
    package static func reservation(_ payload: ReceiptPayload, latestCount: Int, rendered: RenderedPurchases?) -> Int {
        if let rendered { return min(2 * (rendered.byteCount + payload.inAppPurchases.count), 1 << 28) }
        return AppleReceiptJSON.reservation(
            entries: payload.inAppPurchases.count + latestCount, recordBytes: 2 * payload.encoded.count)
    }

    /// The payload's `in_app` entries rendered once, when an answer that lists `latestCount` of them after them would
    /// otherwise render enough of them twice for reuse to pay (``RenderedPurchases/pays(repeated:of:)``): from
    /// `renderings` when it holds this payload's, else rendered now (and kept there).
    package static func renderedOnce(
        _ payload: ReceiptPayload, latestCount: Int?, renderings: RenderedPurchasesCache? = nil
    ) -> RenderedPurchases? {
        let total = payload.inAppPurchases.count
        guard let latestCount, RenderedPurchases.pays(repeated: latestCount, of: total) else { return nil }
        guard let renderings else { return RenderedPurchases(payload.inAppPurchases) }
        return renderings.rendered(for: payload) { RenderedPurchases(payload.inAppPurchases) }
    }

    /// One `latest_receipt_info` entry: the receipt's own, or one a verified source adds.
    enum Entry {
        case purchase(InAppPurchase)
        case record(LatestReceiptRecord)

        var originalTransactionID: String? {
            switch self {
            case .purchase(let purchase): purchase.originalTransactionID ?? purchase.transactionID
            case .record(let record): record.originalTransactionID
            }
        }

        var order: (Int64, String) {
            switch self {
            case .purchase(let purchase):
                (purchase.purchaseDate?.millisecondsSince1970 ?? .min, purchase.transactionID ?? "")
            case .record(let record): (record.purchaseDate?.millisecondsSince1970 ?? .min, record.transactionID)
            }
        }
    }

    /// The receipt's entries in Apple's order (each one `supplement` knows better in its place), then
    /// `supplement`'s newer transactions; with `excludingOld`, only the newest entry of each subscription, by
    /// purchase date then transaction id, wherever it came from.
    static func entries(in payload: ReceiptPayload, supplement: ReceiptSupplement, excludingOld: Bool) -> [Entry] {
        var entries: [Entry] = purchases(in: payload).map { purchase in
            if let id = purchase.transactionID, let known = supplement.overrides[id] { return .record(known) }
            return .purchase(purchase)
        }
        entries += supplement.newer.map(Entry.record)
        guard excludingOld else { return entries }
        var newest: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            let key = entry.originalTransactionID ?? ""
            if let kept = newest[key], !Self.isBefore(entries[kept].order, entry.order) { continue }
            newest[key] = index
        }
        return newest.values.sorted().map { entries[$0] }
    }

    /// Earlier purchase date first; equal dates by transaction id (numeric when both are numbers).
    static func isBefore(_ left: (Int64, String), _ right: (Int64, String)) -> Bool {
        if left.0 != right.0 { return left.0 < right.0 }
        if left.1.utf8.count != right.1.utf8.count { return left.1.utf8.count < right.1.utf8.count }
        return left.1 < right.1
    }
}
