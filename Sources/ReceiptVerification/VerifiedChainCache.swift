internal import Synchronization

/// A bounded, thread-safe map from a chain's identity to its ``VerifiedChain``, with CLOCK eviction.
///
/// The key is SHA-256 over the anchor set, every embedded certificate and the signer identifier, so a
/// hit means "these exact bytes, these anchors". A hit also requires the validation instant to lie
/// inside the stored validity window; otherwise the chain is validated again. Only successful
/// validations are stored. Hits and misses are counted for metrics.
final class VerifiedChainCache: Sendable {
    /// A SHA-256 as four words: hashed and compared in a few instructions instead of byte by byte.
    struct Key: Hashable, Sendable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        /// `nil` unless `digest` is 32 bytes.
        init?(sha256 digest: [UInt8]) {
            guard digest.count == 32 else { return nil }
            func word(_ start: Int) -> UInt64 {
                digest[start..<(start + 8)].reduce(0) { $0 << 8 | UInt64($1) }
            }
            words = (word(0), word(8), word(16), word(24))
        }

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.words == rhs.words }

        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    private struct Slot {
        var key: Key
        var chain: VerifiedChain
        var referenced: Bool
    }

    private struct State {
        var index: [Key: Int] = [:]
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
            guard let position = state.index[key] else { return nil }
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

    /// Stores `chain` under `key`, evicting the first unreferenced entry the clock hand finds when full.
    func insert(_ key: Key, _ chain: VerifiedChain) {
        state.withLock { state in
            if let position = state.index[key] {
                state.slots[position].chain = chain
                state.slots[position].referenced = true
                return
            }
            if state.slots.count < capacity {
                state.index[key] = state.slots.count
                state.slots.append(Slot(key: key, chain: chain, referenced: false))
                return
            }
            // CLOCK: give referenced entries a second chance, replace the first unreferenced one.
            while state.slots[state.hand].referenced {
                state.slots[state.hand].referenced = false
                state.hand = (state.hand + 1) % state.slots.count
            }
            state.index[state.slots[state.hand].key] = nil
            state.slots[state.hand] = Slot(key: key, chain: chain, referenced: false)
            state.index[key] = state.hand
            state.hand = (state.hand + 1) % state.slots.count
        }
    }

    var statistics: ChainCacheStatistics {
        ChainCacheStatistics(
            hits: hitCount.load(ordering: .relaxed), misses: missCount.load(ordering: .relaxed),
            entries: state.withLock { $0.slots.count }, capacity: capacity)
    }
}
