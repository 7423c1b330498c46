internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Receipts' `in_app` entries as last rendered (``RenderedPurchases``), kept from one answer to the next: a receipt
/// sent again (an app checks its receipt at every launch) is answered by copying its entries instead of rendering
/// them again. For the 79 KB receipt of 187 purchases, rendering them was a quarter of the server's CPU per request
/// (BENCHMARKS.md, "Issue 28", step 36).
///
/// An entry is found by a hash of the payload's length and its first and last bytes, and used only when every byte
/// of the payload equals the stored one (`memcmp`): entries are a pure function of the purchases' bytes, so a hit
/// writes exactly what rendering would. Only a verified receipt is ever answered with its purchases, so only
/// payloads Apple signed are stored. Bounded by ``capacity`` entries and ``maximumBytes`` (each entry counts its
/// payload, which it keeps, and its rendered bytes); the oldest entries leave first, and a payload whose entry would
/// take more than a quarter of the bytes is not stored.
package final class RenderedPurchasesCache: Sendable {
    /// The most entries kept.
    package let capacity: Int
    /// The most bytes the entries may take, payloads and rendered bytes together.
    package let maximumBytes: Int

    private struct Entry {
        let payload: ArraySlice<UInt8>
        let rendered: RenderedPurchases
        var cost: Int { payload.count + rendered.byteCount }
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        /// The keys, oldest first.
        var order: [Int] = []
        var bytes = 0
        var hits = 0
        var misses = 0
    }

    private let state = Mutex(State())

    /// A cache of at most `capacity` entries and `maximumBytes` bytes (16 MiB by default: 64 receipts of 79 KB).
    package init(capacity: Int = 64, maximumBytes: Int = 16 << 20) {
        self.capacity = max(1, capacity)
        self.maximumBytes = max(0, maximumBytes)
    }

    /// `payload`'s entries, rendered for an earlier decoding of the same bytes, or `nil`; counts a hit or a miss.
    package func rendered(for payload: ReceiptPayload) -> RenderedPurchases? {
        let key = Self.key(payload.encoded)
        let stored = state.withLock { $0.entries[key] }
        let found = stored.flatMap { stored in
            Self.equal(stored.payload, payload.encoded) ? stored.rendered.reused(for: payload.inAppPurchases) : nil
        }
        state.withLock { state in
            if found != nil { state.hits += 1 } else { state.misses += 1 }
        }
        return found
    }

    /// Keeps `rendered`, the entries of `payload`'s purchases, in the place of the oldest entries if need be.
    package func insert(_ rendered: RenderedPurchases, for payload: ReceiptPayload) {
        let entry = Entry(payload: payload.encoded, rendered: rendered)
        guard entry.cost <= maximumBytes / 4 else { return }
        let key = Self.key(payload.encoded)
        state.withLock { state in
            if let replaced = state.entries.updateValue(entry, forKey: key) {
                state.bytes -= replaced.cost
            } else {
                state.order.append(key)
            }
            state.bytes += entry.cost
            while state.bytes > maximumBytes || state.entries.count > capacity, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                if let evicted = state.entries.removeValue(forKey: oldest) { state.bytes -= evicted.cost }
            }
        }
    }

    /// Hits, misses and entries so far.
    package var statistics: (hits: Int, misses: Int, entries: Int) {
        state.withLock { ($0.hits, $0.misses, $0.entries.count) }
    }

    /// How many bytes at each end of a payload its key reads: the first ones hold the receipt's own attributes
    /// (its opaque value and hash differ from one receipt to the next), the last ones its last purchase.
    static let sampledBytes = 256

    private static func key(_ payload: ArraySlice<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(payload.count)
        payload.prefix(sampledBytes).withUnsafeBytes { hasher.combine(bytes: $0) }
        payload.suffix(sampledBytes).withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    private static func equal(_ stored: ArraySlice<UInt8>, _ candidate: ArraySlice<UInt8>) -> Bool {
        guard stored.count == candidate.count else { return false }
        return stored.withUnsafeBytes { left in
            candidate.withUnsafeBytes { right in
                guard let left = left.baseAddress, let right = right.baseAddress else { return true }  // both empty
                return left == right || memcmp(left, right, stored.count) == 0
            }
        }
    }
}
