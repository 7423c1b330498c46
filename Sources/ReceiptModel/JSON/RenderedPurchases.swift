/// A receipt's `in_app` entries rendered once, kept so that an answer which repeats some of them (verifyReceipt's
/// `latest_receipt_info` lists the auto-renewable ones again, each exactly as in `in_app`) copies their bytes
/// instead of rendering them a second time.
///
/// Rendering an entry is a pure function of its record's bytes, so an entry is reused for any purchase whose
/// record bytes are the same. For the 79 KB, 187-purchase receipt the second rendering was as costly as the
/// first; copying is about ten times cheaper (BENCHMARKS.md).
package struct RenderedPurchases: Sendable {
    /// Each purchase's record and where its entry lies in ``entries``, in the order the entries were rendered
    /// (ascending record offsets: receipt order). One array: the answer allocates no more for reusing entries.
    let rendered: [Rendered]
    /// The entries, one after the other, without separators.
    package let entries: [UInt8]

    /// One purchase's record, and its entry.
    struct Rendered {
        /// Where the record starts in the receipt: searched as a plain integer, since looking at a whole purchase
        /// copies its references.
        let start: Int
        /// The record's bytes, to tell a record of another receipt at the same offset.
        let record: ArraySlice<UInt8>
        /// Where its entry lies in ``RenderedPurchases/entries``.
        let range: Range<Int>
    }

    /// Entries rendered for another decoding of the same payload (the same receipt sent again), given as the
    /// rendered bytes and each purchase's range in them, in receipt order: each range now names `purchases`' record
    /// at the same position, so that ``entryRange(for:)`` finds it by its own offset. `nil` when the numbers differ or
    /// a range lies outside the bytes. The caller has made sure the payloads' bytes are equal
    /// (`RenderedPurchasesCache`): the entries are then exactly what rendering `purchases` would write.
    package init?(entries: [UInt8], ranges: [Range<Int>], for purchases: [InAppPurchase]) {
        guard ranges.count == purchases.count,
            ranges.allSatisfy({ $0.lowerBound >= 0 && $0.upperBound <= entries.count })
        else { return nil }
        var rendered: [Rendered] = []
        rendered.reserveCapacity(ranges.count)
        purchases.withUnsafeBufferPointer { purchases in
            for (purchase, range) in zip(purchases, ranges) {
                rendered.append(Rendered(start: purchase.encoded.startIndex, record: purchase.encoded, range: range))
            }
        }
        self.rendered = rendered
        self.entries = entries
    }

    /// Each purchase's range in ``entries``, in receipt order: with ``entries``, what `RenderedPurchasesCache` keeps
    /// of a rendering (not the records, which would keep the receipt).
    package var entryRanges: [Range<Int>] { rendered.map(\.range) }

    /// Renders the entries of `purchases`, a receipt's ``ReceiptPayload/inAppPurchases`` in receipt order.
    package init(_ purchases: [InAppPurchase]) {
        var rendered: [Rendered] = []
        rendered.reserveCapacity(purchases.count)
        // Through the buffer: each purchase is read in place; an array's element read copies all its references.
        let recordBytes = purchases.withUnsafeBufferPointer { $0.reduce(0) { $0 + $1.encoded.count } }
        var writer = JSONWriter(
            capacity: AppleReceiptJSON.reservation(entries: purchases.count, recordBytes: recordBytes))
        purchases.withUnsafeBufferPointer { purchases in
            for purchase in purchases.indices {
                // Each entry stands alone: no separator before it.
                writer.startWithoutSeparator()
                let start = writer.bytes.count
                AppleReceiptJSON.write(purchases[purchase], to: &writer)
                let record = purchases[purchase].encoded
                rendered.append(Rendered(start: record.startIndex, record: record, range: start..<writer.bytes.count))
            }
        }
        entries = writer.bytes
        self.rendered = rendered
    }

    /// How many bytes the entries take: what an answer that writes each of them up to twice reserves for them
    /// (known, where an estimate per entry fell short of the 79 KB receipt's and made the answer's buffer grow and
    /// copy itself once more).
    package var byteCount: Int { entries.count }

    /// Whether reusing entries pays for the copy of every entry it costs: when `repeated` entries are written
    /// again out of `total`. Copying an entry costs about a tenth of rendering it.
    package static func pays(repeated: Int, of total: Int) -> Bool {
        repeated > 0 && repeated >= total / 10
    }

    /// Where in ``entries`` the entry rendered for a purchase with the same record bytes as `purchase` lies, if
    /// one was: a range rather than a slice, so that copying the entries of a whole receipt takes no reference per
    /// entry (``writeEntry(_:to:)``).
    package func entryRange(for purchase: InAppPurchase) -> Range<Int>? {
        // Records are in ascending offsets; find the one that starts where `purchase`'s does, then make sure it
        // is the same record (a purchase of another receipt may start at the same offset).
        let start = purchase.encoded.startIndex
        var low = 0
        var high = rendered.count
        while low < high {
            let middle = low + (high - low) / 2
            if rendered[middle].start < start { low = middle + 1 } else { high = middle }
        }
        guard low < rendered.count, Self.sameBytes(rendered[low].record, purchase.encoded) else { return nil }
        return rendered[low].range
    }

    /// Writes the entry at `range` (from ``entryRange(for:)``) as `writer`'s next value, copied from the rendered
    /// bytes through their buffer: no slice, so no reference taken per entry.
    func writeEntry(_ range: Range<Int>, to writer: inout JSONWriter) {
        precondition(range.lowerBound >= 0 && range.upperBound <= entries.count, "an entry outside the rendered bytes")
        entries.withUnsafeBufferPointer { writer.raw(UnsafeBufferPointer(rebasing: $0[range])) }
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
