/// A receipt's `in_app` entries rendered once, kept so that an answer which repeats some of them (verifyReceipt's
/// `latest_receipt_info` lists the auto-renewable ones again, each exactly as in `in_app`) copies their bytes
/// instead of rendering them a second time.
///
/// Rendering an entry is a pure function of its record's bytes, so an entry is reused for any purchase whose
/// record bytes are the same. For the 79 KB, 187-purchase receipt the second rendering was as costly as the
/// first; copying is about ten times cheaper (BENCHMARKS.md).
package struct RenderedPurchases: Sendable {
    /// Where each purchase's record starts in the receipt, in the order the entries were rendered (ascending:
    /// receipt order). Searched as plain integers: looking at a whole purchase copies its references.
    let starts: [Int]
    /// Each purchase's record bytes, in the same order, to tell a record of another receipt at the same offset.
    let records: [ArraySlice<UInt8>]
    /// The entries, one after the other, without separators.
    let entries: [UInt8]
    /// Where each purchase's entry lies in ``entries``.
    let ranges: [Range<Int>]

    /// Renders the entries of `purchases`, a receipt's ``ReceiptPayload/inAppPurchases`` in receipt order.
    package init(_ purchases: [InAppPurchase]) {
        var recordBytes = 0
        var starts: [Int] = []
        var records: [ArraySlice<UInt8>] = []
        starts.reserveCapacity(purchases.count)
        records.reserveCapacity(purchases.count)
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(purchases.count)
        var writer = JSONWriter(capacity: 0)
        // Through the buffer: each purchase is read in place; an array's element read copies all its references.
        purchases.withUnsafeBufferPointer { purchases in
            for purchase in purchases.indices {
                recordBytes += purchases[purchase].encoded.count
                starts.append(purchases[purchase].encoded.startIndex)
                records.append(purchases[purchase].encoded)
            }
            writer = JSONWriter(
                capacity: AppleReceiptJSON.reservation(entries: purchases.count, recordBytes: recordBytes))
            for purchase in purchases.indices {
                // Each entry stands alone: no separator before it.
                writer.startWithoutSeparator()
                let start = writer.bytes.count
                AppleReceiptJSON.write(purchases[purchase], to: &writer)
                ranges.append(start..<writer.bytes.count)
            }
        }
        entries = writer.bytes
        self.starts = starts
        self.records = records
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
        var high = starts.count
        while low < high {
            let middle = low + (high - low) / 2
            if starts[middle] < start { low = middle + 1 } else { high = middle }
        }
        guard low < starts.count, Self.sameBytes(records[low], purchase.encoded) else { return nil }
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
