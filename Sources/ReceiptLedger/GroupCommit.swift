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

    private struct State {
        var pending: [(LedgerEntry, Waiter)] = []
        var flushing = false
    }

    private let state = Mutex(State())
    let store: any LedgerStore
    let maximumBatch: Int

    init(store: any LedgerStore, maximumBatch: Int) {
        self.store = store
        self.maximumBatch = max(1, maximumBatch)
    }

    func record(_ entry: LedgerEntry) async throws(LedgerError) -> LedgerOutcome {
        // Unsafe (unchecked) continuations: each is resumed exactly once, by `drain`, which takes it out of `pending`
        // under the lock first.
        let result = await withUnsafeContinuation { (waiter: Waiter) in
            let starts = state.withLock { state in
                state.pending.append((entry, waiter))
                guard !state.flushing else { return false }
                state.flushing = true
                return true
            }
            if starts { Task { await self.drain() } }
        }
        return try result.get()
    }

    /// Flushes batches until nothing waits.
    private func drain() async {
        while true {
            let batch = state.withLock { state -> [(LedgerEntry, Waiter)] in
                let count = min(state.pending.count, maximumBatch)
                let batch = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                if batch.isEmpty { state.flushing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                let outcomes = try await store.commit(batch.map(\.0))
                guard outcomes.count == batch.count else {
                    let error = LedgerError(.unavailable, "the store answered \(outcomes.count) of \(batch.count)")
                    for (_, waiter) in batch { waiter.resume(returning: .failure(error)) }
                    continue
                }
                for ((_, waiter), outcome) in zip(batch, outcomes) { waiter.resume(returning: .success(outcome)) }
            } catch {
                for (_, waiter) in batch { waiter.resume(returning: .failure(error)) }
            }
        }
    }
}
