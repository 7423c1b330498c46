import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Asks the kernel to start reading the next files of a run into its page cache while the current ones are verified,
/// once one of them turned out not to be there.
///
/// Each worker reads its files one at a time, so over files the page cache does not hold (a folder not read lately,
/// or evicted since) a run waits for the disk's latency file after file, with one read per worker in flight. From the
/// first file found missing (``InputFile`` asks the kernel for cached bytes only, first), every read makes sure the
/// ``distance`` files after it, and the files before it that other workers may not have read yet (`lookBehind`),
/// have been asked for (`posix_fadvise(POSIX_FADV_WILLNEED)`, which starts their reads and returns), so many reads
/// are in flight at once. A run whose files are all cached asks for nothing and costs nothing more; one that found
/// a file uncached opens every later file once more to ask for it. Where the kernel or file system cannot tell a
/// cached read from another, the run stops asking and reads as before.
final class ReadAhead: Sendable {
    /// How many files after the one being read are asked for: four of a worker's batches (``VerifyLocal/localBatch``).
    static let distance = 64
    /// The most files before the one being read that are asked for, whatever the number of workers.
    static let maximumLookBehind = 4 * distance

    /// The run's files in input order; `nil` for one never asked for (standard input, a FIFO or a device).
    let paths: [String?]
    /// How many files before the one being read may still be waiting for a worker (at most ``maximumLookBehind``).
    let lookBehind: Int

    /// Set once a file was found missing from the page cache.
    private let cold = Atomic<Bool>(false)
    /// Set once the system could not say whether a read was cached: nothing is probed any more.
    private let unsupported = Atomic<Bool>(false)
    /// The files before this index were asked for, or were passed over when the read-ahead began behind them.
    private let askedThrough = Atomic<Int>(0)
    /// How many files were asked for (opened or not).
    let askedCount = Atomic<Int>(0)

    init(paths: [String?], lookBehind: Int) {
        self.paths = paths
        self.lookBehind = min(max(lookBehind, 0), Self.maximumLookBehind)
    }

    /// Whether reads should still ask for cached bytes first.
    var probes: Bool { !unsupported.load(ordering: .relaxed) }

    /// Before file `index` is read: once the run has found a file missing from the page cache, asks for the files
    /// around it not asked for yet.
    func reading(_ index: Int) {
        guard cold.load(ordering: .relaxed) else { return }
        askAround(index)
    }

    /// What file `index`'s first read found out about the page cache.
    func found(_ probe: InputFile.CacheProbe, reading index: Int) {
        switch probe {
        case .uncached:
            cold.store(true, ordering: .relaxed)
            askAround(index)
        case .unsupported:
            unsupported.store(true, ordering: .relaxed)
        }
    }

    private func askAround(_ index: Int) {
        guard paths.indices.contains(index) else { return }
        // `index < paths.count` and `lookBehind` is small, so neither bound overflows or passes an end.
        let first = max(0, index + 1 - lookBehind)
        let end = index + min(Self.distance, paths.count - 1 - index) + 1
        var through = askedThrough.load(ordering: .relaxed)
        while true {
            let start = max(through, first)
            guard start < end else { return }
            let (claimed, found) = askedThrough.compareExchange(expected: through, desired: end, ordering: .relaxed)
            if claimed {
                for case let path? in paths[start..<end] {
                    ask(path)
                    askedCount.add(1, ordering: .relaxed)
                }
                return
            }
            through = found
        }
    }

    /// Starts reading `path` into the page cache; a hint, so every failure is ignored.
    private func ask(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return }
        #if canImport(Glibc) || canImport(Musl)
            _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_WILLNEED)
        #endif
        close(descriptor)
    }
}
