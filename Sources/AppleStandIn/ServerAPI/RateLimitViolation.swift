package import ReceiptVerification

/// A request that arrived while its app was still rate-limited: a client that did not honour `Retry-After`.
package struct RateLimitViolation: Sendable, Hashable {
    /// The bundle id the limit applies to (both environments share it, as Apple's limits are per app).
    package let bundleID: String
    /// Where the early request went.
    package let environment: ReceiptEnvironment
    /// Its path.
    package let path: String
    /// When it arrived, UNIX milliseconds.
    package let arrivalMilliseconds: Int64
    /// The `Retry-After` instant it should have waited for, UNIX milliseconds.
    package let limitedUntilMilliseconds: Int64
}
