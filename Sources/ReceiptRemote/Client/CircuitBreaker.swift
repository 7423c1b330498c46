import Synchronization

/// Stops asking Apple while Apple is failing, so an outage costs callers one quick
/// `remote.circuit_open` instead of a full deadline each.
///
/// Closed: calls pass; ``Configuration/failureThreshold`` consecutive failed attempts open it.
/// Open: calls are refused until ``Configuration/coolDown`` has passed on the injected clock.
/// Half-open: exactly one probe passes; its success closes the breaker, its failure opens it again for
/// another cool-down. Thread-safe (`Mutex`); share one per upstream.
public final class CircuitBreaker: Sendable {
    /// When the breaker opens and how long it stays open.
    public struct Configuration: Sendable, Hashable {
        /// Consecutive failed attempts (transport errors, HTTP 5xx, timeouts, "try again" statuses,
        /// malformed bodies) that open the breaker.
        public var failureThreshold: Int
        /// How long the breaker stays open before letting one probe through.
        public var coolDown: Duration

        public init(failureThreshold: Int = 5, coolDown: Duration = .seconds(30)) {
            self.failureThreshold = max(1, failureThreshold)
            self.coolDown = coolDown
        }
    }

    /// The breaker's state as seen from outside.
    public enum State: String, Sendable, Hashable {
        case closed
        case open
        /// The cool-down has passed: the next call is a probe (or one is in flight).
        case halfOpen
    }

    /// What ``acquire()`` allowed.
    enum Permit: Sendable { case normal, probe }

    private enum Internal: Sendable {
        case closed(consecutiveFailures: Int)
        case open(until: Duration)
        case halfOpen(probeInFlight: Bool)
    }

    public let configuration: Configuration
    private let clock: any RemoteClock
    private let state: Mutex<Internal> = Mutex(.closed(consecutiveFailures: 0))

    public init(configuration: Configuration = Configuration(), clock: any RemoteClock) {
        self.configuration = configuration
        self.clock = clock
    }

    /// The current state, at the clock's now.
    package var currentState: State {
        let now = clock.now()
        return state.withLock { state in
            switch state {
            case .closed: .closed
            case .open(let until): now >= until ? .halfOpen : .open
            case .halfOpen: .halfOpen
            }
        }
    }

    /// Asks to make one attempt: `nil` when the breaker is open (or a half-open probe is in flight).
    func acquire() -> Permit? {
        let now = clock.now()
        return state.withLock { state -> Permit? in
            switch state {
            case .closed: return .normal
            case .open(let until):
                guard now >= until else { return nil }
                state = .halfOpen(probeInFlight: true)
                return .probe
            case .halfOpen(let probeInFlight):
                guard !probeInFlight else { return nil }
                state = .halfOpen(probeInFlight: true)
                return .probe
            }
        }
    }

    /// Apple gave a usable answer.
    func recordSuccess() {
        state.withLock { $0 = .closed(consecutiveFailures: 0) }
    }

    /// An attempt failed in a way that says Apple is unwell.
    func recordFailure() {
        let now = clock.now()
        let coolDown = configuration.coolDown
        let threshold = configuration.failureThreshold
        state.withLock { state in
            switch state {
            case .closed(let failures):
                state =
                    failures + 1 >= threshold
                    ? .open(until: now + coolDown) : .closed(consecutiveFailures: failures + 1)
            case .halfOpen, .open:
                state = .open(until: now + coolDown)
            }
        }
    }

    /// An attempt ended without saying anything about Apple (cancelled, or refused as our own mistake):
    /// a probe slot it held is freed.
    func recordNeutral(_ permit: Permit) {
        guard permit == .probe else { return }
        state.withLock { state in
            if case .halfOpen = state { state = .halfOpen(probeInFlight: false) }
        }
    }
}
