import ReceiptVerification
import Synchronization

/// The App Store Server API's request budget, per app and environment: never more requests than the rate in any
/// one-second window at Apple, with no burst above it, and nothing at all for an app while Apple's `Retry-After` holds.
///
/// A sliding log of the last `rate` requests. A request may be sent no earlier than one window after the request
/// `rate` places before it *finished* (its answer came back, or it failed): a request arrives at Apple after it is sent
/// and before its answer returns, so however long connections take to open or answers to travel, no window of Apple's
/// holds more than `rate` arrivals. While that earlier request is still in flight, the next one waits for it. The
/// window is a second plus a small margin for clocks read to the millisecond. Times are the client's monotonic clock
/// (``RemoteClock/now()``).
final class APIRateLimiter: Sendable {
    struct Key: Hashable {
        var bundleID: String
        var environment: ReceiptEnvironment
    }

    /// A reserved request, to hand back to ``finish(_:at:)`` once it is answered.
    struct Ticket: Hashable {
        let key: Key
        let id: UInt64
    }

    /// What ``reserve(_:now:latest:)`` found.
    enum Reservation: Equatable {
        /// Send at this instant (reserved).
        case at(Duration, Ticket)
        /// The request `rate` places before is still in flight: ask again once it may have finished.
        case waitForEarlier
        /// No instant at or before `latest` is free (a `Retry-After`, or a full window, runs past it).
        case tooLate
    }

    private struct Entry {
        var id: UInt64
        /// When it was reserved to be sent; once finished, when it finished.
        var instant: Duration
        var finished: Bool

        mutating func finish(at time: Duration) {
            instant = max(instant, time)
            finished = true
        }
    }

    private struct State {
        /// Per key, at least the last `rate` requests (at most twice as many), oldest first.
        var logs: [Key: [Entry]] = [:]
        /// Per bundle id, the monotonic instant before which nothing may be sent (both environments).
        var blockedUntil: [String: Duration] = [:]
        var nextID: UInt64 = 0
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
    /// than `latest`.
    func reserve(_ key: Key, now: Duration, latest: Duration) -> Reservation {
        let rate = rate(key.environment)
        return state.withLock { state -> Reservation in
            var instant = max(now, state.blockedUntil[key.bundleID] ?? .zero)
            if let log = state.logs[key], log.count >= rate {
                let anchor = log[log.count - rate]
                guard anchor.finished else { return .waitForEarlier }
                instant = max(instant, anchor.instant + window)
            }
            guard instant <= latest else { return .tooLate }
            state.nextID &+= 1
            let id = state.nextID
            // In place (a copy of the log held while mutating would copy all of it on every request), and trimmed
            // only once it holds twice the rate, so a request costs O(1) amortized however high the rate is set.
            state.logs[key, default: []].append(Entry(id: id, instant: instant, finished: false))
            if let count = state.logs[key]?.count, count >= 2 * rate {
                state.logs[key]?.removeFirst(count - rate)
            }
            return .at(instant, Ticket(key: key, id: id))
        }
    }

    /// Records that the request of `ticket` finished (answered or failed) at `instant`.
    func finish(_ ticket: Ticket, at instant: Duration) {
        state.withLock { state in
            // From the newest end: a request finishing is almost always among the latest reserved.
            guard let index = state.logs[ticket.key]?.lastIndex(where: { $0.id == ticket.id }) else { return }
            state.logs[ticket.key]?[index].finish(at: instant)
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
