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
    ///   - window: at most this many started and not yet delivered (raised to `jobs` when smaller).
    ///   - work: the work for one input; runs in a child task.
    ///   - deliver: takes one result; returns `false` to stop (nothing more is started or delivered, the work in
    ///     progress is cancelled and awaited).
    static func run<Output: Sendable>(
        count: Int, jobs: Int, window: Int, work: @escaping @Sendable (Int) async -> Output,
        deliver: (Output) -> Bool
    ) async {
        let jobs = max(1, jobs)
        let window = max(window, jobs)
        await withTaskGroup(of: (Int, Output).self) { group in
            var nextToStart = 0
            var nextToDeliver = 0
            var running = 0
            // Results that finished before an earlier one: never more than `window` of them.
            var finished: [Int: Output] = [:]
            finished.reserveCapacity(window)
            while true {
                while running < jobs, nextToStart < count, nextToStart - nextToDeliver < window {
                    let index = nextToStart
                    group.addTask { (index, await work(index)) }
                    nextToStart += 1
                    running += 1
                }
                guard let (index, output) = await group.next() else { return }
                running -= 1
                finished[index] = output
                while let next = finished.removeValue(forKey: nextToDeliver) {
                    guard deliver(next) else {
                        group.cancelAll()
                        return
                    }
                    nextToDeliver += 1
                }
            }
        }
    }
}
