import NIOCore
import NIOPosix
import Synchronization

/// Commits concurrent verifications together: the first to arrive starts a flush, those arriving while it
/// is on disk wait and go into the next one, all in one store transaction. Under load a batch is as large as
/// the verifications that arrived during the previous commit (at most ``maximumBatch``), so the cost of a
/// durable commit (an fsync, a round trip) is shared; alone, a verification commits at once.
///
/// Each verification's answer comes only after its batch committed; a failed batch fails every verification
/// in it, and none reports anything new.
final class GroupCommit: Sendable {
    typealias Waiter = UnsafeContinuation<Result<LedgerOutcome, LedgerError>, Never>

    /// A verification waiting for its batch, with the event loop it waits on (when it runs on one).
    struct Pending {
        var entry: LedgerEntry
        var waiter: Waiter
        var loop: (any EventLoop)?
    }

    private struct State {
        var pending: [Pending] = []
        var flushing = false
    }

    private let state = Mutex(State())
    let store: any LedgerStore
    let maximumBatch: Int

    init(store: any LedgerStore, maximumBatch: Int) {
        self.store = store
        self.maximumBatch = max(1, maximumBatch)
    }

    nonisolated(nonsending) func record(_ entry: LedgerEntry) async throws(LedgerError) -> LedgerOutcome {
        // Unsafe (unchecked) continuations: each is resumed exactly once, by `drain`, which takes it out of `pending`
        // under the lock first.
        let result = await withUnsafeContinuation { (waiter: Waiter) in
            let starts = state.withLock { state in
                state.pending.append(
                    Pending(entry: entry, waiter: waiter, loop: MultiThreadedEventLoopGroup.currentEventLoop))
                guard !state.flushing else { return false }
                state.flushing = true
                return true
            }
            if starts { Task { await self.drain() } }
        }
        return try result.get()
    }

    private func nextBatch() -> [Pending] {
        state.withLock { state -> [Pending] in
            let count = min(state.pending.count, maximumBatch)
            let batch = Array(state.pending.prefix(count))
            state.pending.removeFirst(count)
            if batch.isEmpty { state.flushing = false }
            return batch
        }
    }

    private static func answer(_ batch: [Pending], _ result: Result<[LedgerOutcome], LedgerError>) {
        let results: [Result<LedgerOutcome, LedgerError>]
        switch result {
        case .success(let outcomes) where outcomes.count == batch.count:
            results = outcomes.map { .success($0) }
        case .success(let outcomes):
            let error = LedgerError(.unavailable, "the store answered \(outcomes.count) of \(batch.count)")
            results = Array(repeating: .failure(error), count: batch.count)
        case .failure(let error):
            results = Array(repeating: .failure(error), count: batch.count)
        }
        // One task per event loop resumes that loop's verifications: one wake-up per loop and batch, and
        // each verification continues on the thread that owns its connection.
        var byLoop: [ObjectIdentifier: (any EventLoop, [(Waiter, Result<LedgerOutcome, LedgerError>)])] = [:]
        for (pending, result) in zip(batch, results) {
            guard let loop = pending.loop else {
                pending.waiter.resume(returning: result)
                continue
            }
            byLoop[ObjectIdentifier(loop), default: (loop, [])].1.append((pending.waiter, result))
        }
        for (loop, waiters) in byLoop.values {
            loop.execute { for (waiter, result) in waiters { waiter.resume(returning: result) } }
        }
    }

    /// Flushes batches until nothing waits.
    private func drain() async {
        while true {
            let batch = nextBatch()
            guard !batch.isEmpty else { return }
            do {
                Self.answer(batch, .success(try await store.commit(batch.map(\.entry))))
            } catch {
                Self.answer(batch, .failure(error))
            }
        }
    }
}
