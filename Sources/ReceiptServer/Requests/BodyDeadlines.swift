import Synchronization

/// Cancels body reads that outlive their deadline, with one sweeping task for all of them.
///
/// A timer per request (a `Task.sleep` raced against the read) costs a kernel timer registration and
/// two cancellations per request, a quarter of the server's throughput on small receipts. Instead each
/// read registers its task and deadline here (two uncontended lock operations), and a single sweeper,
/// running only while reads are registered, cancels the late ones every ``granularity``.
final class BodyDeadlines: Sendable {
    typealias Read = Task<Result<[UInt8], ServerError>, Never>

    private struct Entry {
        let deadline: ContinuousClock.Instant
        let task: Read
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var expired: Set<UInt64> = []
        var nextID: UInt64 = 0
        var sweeping = false
    }

    /// How often late reads are looked for; a read is cancelled at most this long after its deadline.
    let granularity: Duration
    private let state = Mutex(State())

    init(granularity: Duration) {
        self.granularity = granularity
    }

    /// Registers a read; returns its ticket for ``finish(_:)``.
    func register(_ task: Read, deadline: ContinuousClock.Instant) -> UInt64 {
        let (id, startSweeper) = state.withLock { state in
            state.nextID &+= 1
            state.entries[state.nextID] = Entry(deadline: deadline, task: task)
            defer { state.sweeping = true }
            return (state.nextID, !state.sweeping)
        }
        if startSweeper {
            Task { await self.sweep() }
        }
        return id
    }

    /// Unregisters a read; `true` when the sweeper cancelled it for being late.
    func finish(_ id: UInt64) -> Bool {
        state.withLock { state in
            state.entries[id] = nil
            return state.expired.remove(id) != nil
        }
    }

    private func sweep() async {
        while true {
            try? await Task.sleep(for: granularity)
            let now = ContinuousClock.now
            let (late, keepGoing) = state.withLock { state in
                var late: [Read] = []
                for (id, entry) in state.entries where entry.deadline <= now && !state.expired.contains(id) {
                    state.expired.insert(id)
                    late.append(entry.task)
                }
                if state.entries.isEmpty { state.sweeping = false }
                return (late, state.sweeping)
            }
            for task in late { task.cancel() }
            if !keepGoing { return }
        }
    }
}
