import ReceiptVerification
import Synchronization

/// The App Store Server API's request budget, per app and environment: never more requests than the rate in any
/// one-second window, with no burst above it, and nothing at all for an app while Apple's `Retry-After` holds.
///
/// A sliding log: each request reserves the instant it may be sent, no earlier than one window after the request
/// `rate` places before it, so any window of ``window`` holds at most `rate` of them. The window is a second plus a
/// small margin, so that the few milliseconds between a reservation and the bytes reaching Apple cannot put one
/// request too many into one of Apple's seconds. Times are the client's monotonic clock (``RemoteClock/now()``).
final class APIRateLimiter: Sendable {
    struct Key: Hashable {
        var bundleID: String
        var environment: ReceiptEnvironment
    }

    private struct State {
        /// Per key, the last `rate` reserved instants, oldest first.
        var logs: [Key: [Duration]] = [:]
        /// Per bundle id, the monotonic instant before which nothing may be sent (both environments).
        var blockedUntil: [String: Duration] = [:]
    }

    /// Requests per window in Production.
    let productionRate: Int
    /// Requests per window in Sandbox: a tenth of Production's, at least one.
    let sandboxRate: Int
    /// One second and the margin.
    let window: Duration
    private let state = Mutex(State())

    init(productionRate: Int, margin: Duration = .milliseconds(20)) {
        self.productionRate = max(1, productionRate)
        self.sandboxRate = max(1, self.productionRate / 10)
        self.window = .seconds(1) + margin
    }

    func rate(_ environment: ReceiptEnvironment) -> Int {
        environment == .production ? productionRate : sandboxRate
    }

    /// Reserves the earliest instant at or after `now` at which a request for `key` may be sent, when it is no later
    /// than `latest`; `nil` (and nothing reserved) otherwise.
    func reserve(_ key: Key, now: Duration, latest: Duration) -> Duration? {
        let rate = rate(key.environment)
        return state.withLock { state -> Duration? in
            var log = state.logs[key] ?? []
            var instant = max(now, state.blockedUntil[key.bundleID] ?? .zero)
            if log.count >= rate, let anchor = log.dropLast(rate - 1).last {
                instant = max(instant, anchor + window)
            }
            guard instant <= latest else { return nil }
            log.append(instant)
            if log.count > rate { log.removeFirst(log.count - rate) }
            state.logs[key] = log
            return instant
        }
    }

    /// The instant before which nothing may be sent for `bundleID`, when one is later than `now`.
    func blocked(_ bundleID: String, now: Duration) -> Duration? {
        state.withLock { state in state.blockedUntil[bundleID].flatMap { $0 > now ? $0 : nil } }
    }

    /// Sends nothing for `bundleID`, in either environment, before `until`; an earlier instant than one already
    /// held changes nothing.
    func block(_ bundleID: String, until: Duration) {
        state.withLock { state in
            state.blockedUntil[bundleID] = max(state.blockedUntil[bundleID] ?? .zero, until)
        }
    }
}
