/// Counters of the verified-chain cache, for metrics.
public struct ChainCacheStatistics: Sendable, Hashable, CustomStringConvertible {
    /// Lookups answered from the cache (no X.509 path validation ran).
    public let hits: Int
    /// Lookups that had to validate the chain (not cached, or the instant outside the cached window).
    public let misses: Int
    /// Chains currently stored.
    public let entries: Int
    /// The most chains stored at once.
    public let capacity: Int

    public var description: String { "hits \(hits), misses \(misses), entries \(entries)/\(capacity)" }
}
