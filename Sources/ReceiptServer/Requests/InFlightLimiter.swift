import Synchronization

/// Bounds the requests verified at once; beyond the bound a request is refused, not queued, so an
/// overloaded server answers quickly (HTTP 503) instead of timing everyone out.
public final class InFlightLimiter: Sendable {
    /// The bound.
    public let limit: Int
    private let count = Atomic<Int>(0)

    public init(limit: Int) {
        self.limit = limit
    }

    /// Requests holding a slot now.
    public var current: Int { count.load(ordering: .relaxed) }

    /// Takes a slot; `false` when all are taken.
    public func tryAcquire() -> Bool {
        let now = count.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        if now > limit {
            count.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            return false
        }
        return true
    }

    /// Gives back a slot taken by ``tryAcquire()``.
    public func release() {
        count.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    }
}
