import Synchronization

/// Bounds the requests verified at once; beyond the bound a request is refused, not queued, so an
/// overloaded server answers quickly (HTTP 503) instead of timing everyone out.
package final class InFlightLimiter: Sendable {
    /// The bound.
    package let limit: Int
    private let count = Atomic<Int>(0)

    package init(limit: Int) {
        self.limit = limit
    }

    /// Requests holding a slot now.
    package var current: Int { count.load(ordering: .relaxed) }

    /// Takes a slot; `false` when all are taken.
    package func tryAcquire() -> Bool {
        let now = count.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        if now > limit {
            count.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            return false
        }
        return true
    }

    /// Gives back a slot taken by ``tryAcquire()``.
    package func release() {
        count.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    }
}
