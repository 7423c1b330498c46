package import ReceiptModel
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Musl)
    internal import Musl
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Receipts' `in_app` entries as rendered for an earlier answer (``RenderedPurchases``): a receipt sent again (an app
/// checks its receipt at every launch) is answered by copying its entries instead of rendering them again. For the
/// 79 KB receipt of 187 purchases, rendering them was a quarter of the server's CPU per request (BENCHMARKS.md,
/// "Issue 28", step 36).
///
/// An entry is found by a hash of the payload's length and its first and last bytes, and used only when every byte
/// of the payload equals the stored copy (`memcmp`): entries are a pure function of the purchases' bytes, so a copy
/// is exactly what rendering would write. The server stores only receipts it answers with status 0 locally (verified,
/// accepted by the policy). An entry holds copies of the payload and of the rendered bytes, never the request's or
/// the receipt's buffers, so what it counts is what it keeps: for the 79 KB receipt about 210 KB. Bounded by
/// ``capacity`` entries and ``maximumBytes``; CLOCK eviction (an entry used since the hand last passed stays), and a
/// payload whose entry would take more than a quarter of the bytes is not stored.
package final class RenderedPurchasesCache: Sendable {
    /// What the cache has done and holds.
    package struct Statistics: Sendable, Equatable {
        package var hits: Int
        package var misses: Int
        package var entries: Int
        /// The bytes the entries keep: payloads, rendered bytes and ranges.
        package var bytes: Int
    }

    /// The most entries kept.
    package let capacity: Int
    /// The most bytes the entries may keep.
    package let maximumBytes: Int

    /// The server's bounds: 64 receipts, 16 MiB.
    package static let defaultCapacity = 64
    package static let defaultMaximumBytes = 16 << 20

    private struct Slot {
        let key: Int
        let payload: [UInt8]
        let entries: [UInt8]
        let ranges: [Range<Int>]
        var referenced = false

        var cost: Int { payload.count + entries.capacity + ranges.count * MemoryLayout<Range<Int>>.stride }
    }

    private struct State {
        /// From a key to its slot.
        var index: [Int: Int] = [:]
        var slots: [Slot] = []
        var hand = 0
        var bytes = 0

        /// Takes out the first slot the hand finds unreferenced, clearing the bits it passes; the last slot moves
        /// into its place.
        mutating func evictOne() -> Slot {
            while slots[hand].referenced {
                slots[hand].referenced = false
                hand = (hand + 1) % slots.count
            }
            return remove(at: hand)
        }

        mutating func remove(at position: Int) -> Slot {
            let removed = slots[position]
            index[removed.key] = nil
            let last = slots.count - 1
            if position != last {
                slots[position] = slots[last]
                index[slots[position].key] = position
            }
            slots.removeLast()
            if hand >= slots.count { hand = 0 }
            bytes -= removed.cost
            return removed
        }
    }

    private let state = Mutex(State())
    private let hitCount = Atomic<Int>(0)
    private let missCount = Atomic<Int>(0)

    package init(capacity: Int = defaultCapacity, maximumBytes: Int = defaultMaximumBytes) {
        self.capacity = max(1, capacity)
        self.maximumBytes = max(0, maximumBytes)
    }

    /// `payload`'s entries: copied from an earlier rendering of the same bytes, else `render()`'s, kept for next time.
    package func rendered(for payload: ReceiptPayload, render: () -> RenderedPurchases) -> RenderedPurchases {
        let key = Self.key(payload.encoded)
        let stored: Slot? = state.withLock { state in
            guard let position = state.index[key] else { return nil }
            state.slots[position].referenced = true
            return state.slots[position]
        }
        if let stored, Self.equal(stored.payload, payload.encoded),
            let copied = RenderedPurchases(entries: stored.entries, ranges: stored.ranges, for: payload.inAppPurchases)
        {
            hitCount.add(1, ordering: .relaxed)
            return copied
        }
        missCount.add(1, ordering: .relaxed)
        let rendered = render()
        insert(key, payload, rendered)
        return rendered
    }

    /// Keeps copies of `payload` and `rendered` under `key`, in the place of another payload under the same key, and
    /// of the entries the clock hand takes out when full.
    private func insert(_ key: Int, _ payload: ReceiptPayload, _ rendered: RenderedPurchases) {
        let entries = rendered.entries
        // The rendering's buffer was reserved from an estimate: copied when the estimate left much of it unused.
        let exact = entries.capacity - entries.count > entries.count / 8 ? Array(entries[...]) : entries
        let slot = Slot(key: key, payload: Array(payload.encoded), entries: exact, ranges: rendered.entryRanges)
        guard slot.cost <= maximumBytes / 4 else { return }
        // What leaves is released after the lock, not while the other event loop may wait for it.
        let evicted: [Slot] = state.withLock { state in
            var evicted: [Slot] = []
            if let position = state.index[key] { evicted.append(state.remove(at: position)) }
            while !state.slots.isEmpty, state.slots.count >= capacity || state.bytes + slot.cost > maximumBytes {
                evicted.append(state.evictOne())
            }
            state.index[key] = state.slots.count
            state.slots.append(slot)
            state.bytes += slot.cost
            return evicted
        }
        _ = evicted  // released here
    }

    package var statistics: Statistics {
        let (entries, bytes) = state.withLock { ($0.slots.count, $0.bytes) }
        return Statistics(
            hits: hitCount.load(ordering: .relaxed), misses: missCount.load(ordering: .relaxed), entries: entries,
            bytes: bytes)
    }

    /// How many bytes at each end of a payload its key reads: the first ones hold the receipt's own attributes
    /// (Apple sorts them by type, so its opaque value and hash, which differ from one receipt to the next, come
    /// early), the last ones its last purchase. Two payloads under one key only miss.
    static let sampledBytes = 256

    private static func key(_ payload: ArraySlice<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(payload.count)
        payload.prefix(sampledBytes).withUnsafeBytes { hasher.combine(bytes: $0) }
        payload.suffix(sampledBytes).withUnsafeBytes { hasher.combine(bytes: $0) }
        return hasher.finalize()
    }

    private static func equal(_ stored: [UInt8], _ candidate: ArraySlice<UInt8>) -> Bool {
        guard stored.count == candidate.count else { return false }
        return stored.withUnsafeBytes { left in
            candidate.withUnsafeBytes { right in
                guard let left = left.baseAddress, let right = right.baseAddress else { return true }  // both empty
                return memcmp(left, right, stored.count) == 0
            }
        }
    }
}
