/// Where the contents of nested indefinite-length elements end, recorded once by the scan that finds the end
/// of the outermost one, so that reading its descendants never scans them again.
///
/// The end of an indefinite-length element is only found by parsing its children, and their children where
/// those are indefinite too (X.690 §8.1.3.6). Scanning again for each nested element as a reader descends
/// made nested indefinite-length input cost its depth times its size. Instead, the scan of an element
/// records the element itself (entry 0) and every indefinite element it passes below it: those reached
/// through indefinite elements only, as it skips a definite-length child by its length without looking
/// inside. It meets them in preorder, so the entries come sorted by start, and each entry also says where the
/// entries of its subtree end. A reader over the children of a scanned or recorded element carries the table
/// and a cursor: the next indefinite child it meets is the cursor's entry (found in O(1), checked against its
/// start), and reading past that child moves the cursor past its subtree. Every element is then parsed once
/// by the scan that covers it and once by whoever reads it, whatever the nesting.
///
/// The table is immutable once built and shared by every element and reader derived from the scanned
/// element: an array's storage is a reference, so copying the table copies a pointer. A scan that meets no
/// nested indefinite element records nothing and allocates nothing (its children need no ends), and
/// definite-length input never scans; elements and readers then hold no table at all (`nil`, which the
/// runtime does not reference-count, so the definite-length path pays next to nothing for the field). The
/// table holds 24 bytes per recorded element, at most 6 bytes per scanned input byte (an indefinite element
/// takes at least 4).
@usableFromInline
struct IndefiniteEnds: Sendable {
    /// One recorded indefinite-length element.
    @usableFromInline
    struct Entry: Sendable {
        /// The index of the element's identifier octets.
        @usableFromInline var start: Int
        /// The index of its end-of-contents octets; while the scan is inside the element, where its contents start.
        @usableFromInline var contentEnd: Int
        /// The index of the first entry after the element's subtree; while the scan is inside the element, the
        /// index of the enclosing element's entry (-1 for the scanned element, which has none).
        @usableFromInline var next: Int

        @inlinable
        init(start: Int, contentEnd: Int, next: Int) {
            self.start = start
            self.contentEnd = contentEnd
            self.next = next
        }
    }

    /// The recorded elements in preorder, so sorted by `start`; `nil` when nothing was recorded.
    @usableFromInline let entries: [Entry]?

    @inlinable
    init(_ entries: [Entry]?) { self.entries = entries }

    /// No recorded ends (a computed property, so no lazy global is checked on the hot path).
    @inlinable
    static var none: IndefiniteEnds { IndefiniteEnds(nil) }

    /// `true` when nothing was recorded.
    @inlinable
    var isEmpty: Bool { entries == nil }

    /// The entry at `cursor`, if it records the element that starts at `start`.
    @inlinable
    func entry(at cursor: Int, startingAt start: Int) -> Entry? {
        guard let entries, cursor >= 0, cursor < entries.count else { return nil }
        let entry = entries[cursor]
        return entry.start == start ? entry : nil
    }

    /// Finds the end-of-contents octets that close the indefinite-length element that starts at `start` and
    /// whose contents start at `contentStart` (at nesting `depth`), and records its end and the ends of the
    /// indefinite elements nested in it; records nothing when none is nested in it.
    ///
    /// One pass, no recursion: the open elements are chained through their entries' `next`, so the scan
    /// needs no stack of its own whatever ``BERLimits/maximumDepth`` allows. Errors are those a recursive
    /// scan meets first, in byte order: a nesting deeper than the limit where the too-deep contents start, an
    /// element never closed where the innermost open contents start, and every error of a child's header.
    /// - Returns: the index of the closing end-of-contents octets, and the table (the element at entry 0).
    @usableFromInline
    static func scan(
        in bytes: ArraySlice<UInt8>, start: Int, contentStart: Int, depth: Int, limits: BERLimits
    ) throws(BERError) -> (contentEnd: Int, ends: IndefiniteEnds) {
        guard depth <= limits.maximumDepth else {
            throw BERError(.depthExceeded, "nesting exceeds \(limits.maximumDepth) levels", at: contentStart)
        }
        var entries: [Entry] = []
        var open = -1  // the entry of the innermost open nested element; -1 for the scanned element
        var openContentStart = contentStart
        var level = depth  // the nesting of the contents being scanned
        var index = contentStart
        while true {
            guard bytes.endIndex - index >= 2 else {
                throw BERError(.missingEndOfContents, "indefinite-length element is never closed", at: openContentStart)
            }
            if bytes[index] == 0, bytes[index + 1] == 0 {
                guard open >= 0 else {
                    guard !entries.isEmpty else { return (index, .none) }
                    entries[0].contentEnd = index
                    entries[0].next = entries.count
                    return (index, IndefiniteEnds(entries))
                }
                // The innermost open element closes: record its end and where its subtree's entries end.
                let parent = entries[open].next
                entries[open].contentEnd = index
                entries[open].next = entries.count
                open = parent
                openContentStart = parent >= 0 ? entries[parent].contentEnd : contentStart
                level -= 1
                index += 2
                continue
            }
            let header = try BERReader.parseHeader(in: bytes, at: index)
            if let end = header.contentEnd {
                index = end  // a definite length is skipped whole
                continue
            }
            guard level < limits.maximumDepth else {
                throw BERError(
                    .depthExceeded, "nesting exceeds \(limits.maximumDepth) levels", at: header.contentStart)
            }
            if entries.isEmpty {
                // Receipts nest a handful of indefinite levels: one allocation holds them all.
                entries.reserveCapacity(16)
                entries.append(Entry(start: start, contentEnd: contentStart, next: -1))  // closed on return
            }
            entries.append(Entry(start: index, contentEnd: header.contentStart, next: open))
            open = entries.count - 1
            openContentStart = header.contentStart
            level += 1
            index = header.contentStart
        }
    }
}
