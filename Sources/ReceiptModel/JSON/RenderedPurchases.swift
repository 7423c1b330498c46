/// A receipt's `in_app` entries rendered once, kept so that an answer which repeats some of them (verifyReceipt's
/// `latest_receipt_info` lists the auto-renewable ones again, each exactly as in `in_app`) copies their bytes
/// instead of rendering them a second time.
///
/// Rendering an entry is a pure function of its record's bytes, so an entry is reused for any purchase whose
/// record bytes are the same. For the 79 KB, 187-purchase receipt the second rendering was as costly as the
/// first; copying is about ten times cheaper (BENCHMARKS.md).
package struct RenderedPurchases: Sendable {
    /// The purchases, in the order their entries were rendered (ascending record offsets: receipt order).
    let purchases: [InAppPurchase]
    /// The entries, one after the other, without separators.
    let entries: [UInt8]
    /// Where each purchase's entry lies in ``entries``.
    let ranges: [Range<Int>]

    /// Renders the entries of `purchases`, a receipt's ``ReceiptPayload/inAppPurchases`` in receipt order.
    package init(_ purchases: [InAppPurchase]) {
        self.purchases = purchases
        let recordBytes = purchases.reduce(0) { $0 + $1.encoded.count }
        var writer = JSONWriter(
            capacity: AppleReceiptJSON.reservation(entries: purchases.count, recordBytes: recordBytes))
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(purchases.count)
        for purchase in purchases {
            // Each entry stands alone: no separator before it.
            writer.startWithoutSeparator()
            let start = writer.bytes.count
            AppleReceiptJSON.write(purchase, to: &writer)
            ranges.append(start..<writer.bytes.count)
        }
        entries = writer.bytes
        self.ranges = ranges
    }

    /// Whether reusing entries pays for the copy of every entry it costs: when `repeated` entries are written
    /// again out of `total`. Copying an entry costs about a tenth of rendering it.
    package static func pays(repeated: Int, of total: Int) -> Bool {
        repeated > 0 && repeated >= total / 10
    }

    /// The entry rendered for a purchase with the same record bytes as `purchase`, if any.
    func entry(for purchase: InAppPurchase) -> ArraySlice<UInt8>? {
        // Records are in ascending offsets; find the one that starts where `purchase`'s does, then make sure it
        // is the same record (a purchase of another receipt may start at the same offset).
        let start = purchase.encoded.startIndex
        var low = 0
        var high = purchases.count
        while low < high {
            let middle = low + (high - low) / 2
            if purchases[middle].encoded.startIndex < start { low = middle + 1 } else { high = middle }
        }
        guard low < purchases.count, Self.sameBytes(purchases[low].encoded, purchase.encoded) else { return nil }
        return entries[ranges[low]]
    }

    /// Whether two records hold the same bytes: at once when both are the same slice of one receipt's storage
    /// (the usual case, a purchase of the very payload rendered), else byte by byte.
    private static func sameBytes(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
        lhs.withUnsafeBufferPointer { left in
            rhs.withUnsafeBufferPointer { right in
                left.count == right.count && (left.baseAddress == right.baseAddress || left.elementsEqual(right))
            }
        }
    }
}
