/// Runs one piece of work per input concurrently and hands the results over strictly in input order, with a
/// bounded window: memory stays the same for ten inputs or a hundred thousand.
///
/// At most `jobs` pieces of work are in progress at once, as child tasks of one task group, so CPU-bound work
/// (a local verification) spreads over the cores Swift's global executor runs on, and waiting work (a call to
/// Apple) waits without holding a thread. At most `window` inputs are started and not yet handed over: when
/// the oldest is slow, the others that finished wait for it, and no new one starts until it is handed over.
enum OrderedPipeline {
    /// Runs `work(0) … work(count - 1)` and calls `deliver` with each result in index order, on the calling
    /// task.
    /// - Parameters:
    ///   - count: how many inputs, numbered from 0.
    ///   - jobs: at most this many in progress at once (at least 1).
    ///   - window: at most this many inputs started and not yet delivered (raised to `jobs + 1` batches when
    ///     smaller).
    ///   - batch: how many consecutive inputs one child task works through, one after the other. For quick local
    ///     work a batch of several keeps task creation and the wake-ups of the delivering task (a thread
    ///     handoff each) off the per-input cost; for slow waiting work (a call to Apple) it should be 1.
    ///   - work: the work for one input; runs in a child task.
    ///   - deliver: takes one result; returns `false` to stop (nothing more is started or delivered, the work in
    ///     progress is cancelled and awaited).
    static func run<Output: Sendable>(
        count: Int, jobs: Int, window: Int, batch: Int = 1, work: @escaping @Sendable (Int) async -> Output,
        deliver: (Output) -> Bool
    ) async {
        let jobs = max(1, jobs)
        let batch = max(1, batch)
        let batches = count / batch + (count % batch == 0 ? 0 : 1)
        // The window counts inputs; in batches it leaves one spare batch beyond the running ones, so a worker
        // that finishes early can start the next while the oldest is still being worked through.
        let window = max(window / batch, jobs + 1)
        await withTaskGroup(of: (Int, [Output]).self) { group in
            var nextToStart = 0
            var nextToDeliver = 0
            var running = 0
            // Batches that finished before an earlier one: never more than `window` of them.
            var finished: [Int: [Output]] = [:]
            finished.reserveCapacity(window)
            while true {
                while running < jobs, nextToStart < batches, nextToStart - nextToDeliver < window {
                    let number = nextToStart
                    let inputs = (number * batch)..<min(count, (number + 1) * batch)
                    group.addTask {
                        var outputs: [Output] = []
                        outputs.reserveCapacity(inputs.count)
                        for index in inputs where !Task.isCancelled { outputs.append(await work(index)) }
                        return (number, outputs)
                    }
                    nextToStart += 1
                    running += 1
                }
                guard let (number, outputs) = await group.next() else { return }
                running -= 1
                finished[number] = outputs
                while let next = finished.removeValue(forKey: nextToDeliver) {
                    for output in next {
                        guard deliver(output) else {
                            group.cancelAll()
                            return
                        }
                    }
                    nextToDeliver += 1
                }
            }
        }
    }
}
