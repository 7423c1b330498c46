internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A bounded, thread-safe map from a chain's identity to its ``VerifiedChain``, with CLOCK eviction.
///
/// The identity is every byte that decides a chain's validation: the anchor set's identity, each embedded
/// certificate and the signer identifier. A cheap hash of their lengths and last bytes finds the slot; a hit
/// then requires every byte to equal the stored copy, so a hit means "these exact bytes, these anchors"
/// without a cryptographic digest per receipt. A hit also requires the validation instant to lie inside the
/// stored validity window; otherwise the chain is validated again. Only successful validations are stored, and
/// those of receipts the policy refused only where no entry has to make room for them.
/// Hits and misses are counted for metrics.
final class VerifiedChainCache: Sendable {
    /// A chain's identity, borrowed from the receipt being verified.
    struct Key: Sendable {
        /// The parts compared byte for byte, in order.
        let parts: [ArraySlice<UInt8>]
        /// Locates the slot. Built from each part's length and its last ``sampledTail`` bytes: a certificate
        /// ends in its signature, so distinct certificates differ there. Two identities that agree on these
        /// still differ in ``parts``, which every hit compares in full.
        let hash: Int

        /// How many trailing bytes of each part the hash reads.
        static let sampledTail = 32

        init(parts: [ArraySlice<UInt8>]) {
            self.parts = parts
            var hasher = Hasher()
            hasher.combine(parts.count)
            for part in parts {
                hasher.combine(part.count)
                part.suffix(Self.sampledTail).withUnsafeBytes { hasher.combine(bytes: $0) }
            }
            hash = hasher.finalize()
        }
    }

    private struct Slot {
        var hash: Int
        /// Copies of the key's parts: the cache outlives the receipt buffer they were borrowed from.
        var parts: [[UInt8]]
        var chain: VerifiedChain
        var referenced: Bool

        init(_ key: Key, _ chain: VerifiedChain) {
            hash = key.hash
            parts = key.parts.map { Array($0) }  // deliberate copy, see above
            self.chain = chain
            referenced = false
        }

        /// `true` when every part of `key` equals the stored copy, byte for byte.
        func matches(_ key: Key) -> Bool {
            guard hash == key.hash, parts.count == key.parts.count else { return false }
            for (stored, candidate) in zip(parts, key.parts) where !Self.equal(stored, candidate) {
                return false
            }
            return true
        }

        private static func equal(_ stored: [UInt8], _ candidate: ArraySlice<UInt8>) -> Bool {
            guard stored.count == candidate.count else { return false }
            return stored.withUnsafeBytes { a in
                candidate.withUnsafeBytes { b in
                    guard let left = a.baseAddress, let right = b.baseAddress else { return true }  // both empty
                    return memcmp(left, right, a.count) == 0
                }
            }
        }
    }

    private struct State {
        /// From ``Key/hash`` to the slot holding it.
        var index: [Int: Int] = [:]
        var slots: [Slot] = []
        var hand = 0
    }

    let capacity: Int
    private let state: Mutex<State>
    private let hitCount = Atomic<Int>(0)
    private let missCount = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Mutex(State())
    }

    /// The chain stored under `key` when it validates at `instant`; counts a hit or a miss.
    func lookup(_ key: Key, at instant: Int64) -> VerifiedChain? {
        let found: VerifiedChain? = state.withLock { state in
            guard let position = state.index[key.hash], state.slots[position].matches(key) else { return nil }
            let chain = state.slots[position].chain
            guard chain.covers(instant) else { return nil }
            state.slots[position].referenced = true
            return chain
        }
        if found != nil {
            hitCount.wrappingAdd(1, ordering: .relaxed)
        } else {
            missCount.wrappingAdd(1, ordering: .relaxed)
        }
        return found
    }

    /// The most bytes one entry may copy. Apple's chains are about 4 KB; a receipt padded with large extra
    /// certificates is still verified, just not remembered, so the cache holds at most `capacity` × this.
    static let maximumStoredBytes = 32 * 1024

    /// Stores `chain` under `key`; when full, evicts the first unreferenced entry the clock hand finds, or, when
    /// `evicting` is false, stores nothing.
    ///
    /// The same chain validated again (at an instant outside its stored window) replaces its entry. A different
    /// chain whose hash happens to be equal is not stored: no request can evict an entry by colliding with it.
    func insert(_ key: Key, _ chain: VerifiedChain, evicting: Bool = true) {
        guard key.parts.reduce(0, { $0 + $1.count }) <= Self.maximumStoredBytes else { return }
        state.withLock { state in
            if let position = state.index[key.hash] {
                guard state.slots[position].matches(key) else { return }
                state.slots[position].chain = chain
                state.slots[position].referenced = true
                return
            }
            if state.slots.count < capacity {
                state.index[key.hash] = state.slots.count
                state.slots.append(Slot(key, chain))
                return
            }
            guard evicting else { return }
            // CLOCK: give referenced entries a second chance, replace the first unreferenced one.
            while state.slots[state.hand].referenced {
                state.slots[state.hand].referenced = false
                state.hand = (state.hand + 1) % state.slots.count
            }
            state.index[state.slots[state.hand].hash] = nil
            state.slots[state.hand] = Slot(key, chain)
            state.index[key.hash] = state.hand
            state.hand = (state.hand + 1) % state.slots.count
        }
    }

    var statistics: ChainCacheStatistics {
        ChainCacheStatistics(
            hits: hitCount.load(ordering: .relaxed), misses: missCount.load(ordering: .relaxed),
            entries: state.withLock { $0.slots.count }, capacity: capacity)
    }
}
