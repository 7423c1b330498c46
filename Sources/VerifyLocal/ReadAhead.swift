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
/// are in flight at once. A run whose files are all cached asks for nothing and costs nothing more. A file asked for
/// stays open until its worker reads it (``take(_:)``), so asking costs one `posix_fadvise` per file, not a second
/// `open` and `close`: a run that found one file uncached among thousands cached reads the rest at the cached pace.
/// Where the kernel or file system cannot tell a cached read from another, the run stops asking and reads as before.
final class ReadAhead: Sendable {
    /// How many files after the one being read are asked for: four of a worker's batches (``VerifyLocal/localBatch``).
    static let distance = 64
    /// The most files before the one being read that are asked for, whatever the number of workers.
    static let maximumLookBehind = 4 * distance
    /// The most files kept open between being asked for and being read; past that, one asked for is closed at once
    /// (and opened again by its worker).
    static let maximumOpen = distance + maximumLookBehind

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
    /// The files asked for and not taken yet, by index: their open descriptors.
    private let opened = Mutex<[Int: Int32]>([:])

    init(paths: [String?], lookBehind: Int) {
        self.paths = paths
        self.lookBehind = min(max(lookBehind, 0), Self.maximumLookBehind)
    }

    deinit {
        opened.withLock { opened in
            for descriptor in opened.values { close(descriptor) }
        }
    }

    /// Whether reads should still ask for cached bytes first.
    var probes: Bool { !unsupported.load(ordering: .relaxed) }

    /// The descriptor file `index` was opened with when it was asked for, handed over to its reader (who closes it);
    /// `nil` when it was not asked for, was closed at once, or was taken already. A run that found nothing uncached
    /// (nothing asked for) takes no lock here.
    func take(_ index: Int) -> Int32? {
        guard cold.load(ordering: .relaxed) else { return nil }
        return opened.withLock { $0.removeValue(forKey: index) }
    }

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
                for index in start..<end {
                    guard let path = paths[index] else { continue }
                    ask(path, index)
                    askedCount.add(1, ordering: .relaxed)
                }
                return
            }
            through = found
        }
    }

    /// Starts reading `path`, file `index`, into the page cache and keeps it open for its reader (``take(_:)``); a
    /// hint, so every failure is ignored. Opened without blocking: a path replaced by a FIFO since the folder was
    /// walked does not wait for a writer here (its reader then finds nothing to read).
    private func ask(_ path: String, _ index: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return }
        #if canImport(Glibc) || canImport(Musl)
            _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_WILLNEED)
        #endif
        let kept = opened.withLock { opened in
            guard opened.count < Self.maximumOpen, opened[index] == nil else { return false }
            opened[index] = descriptor
            return true
        }
        if !kept { close(descriptor) }
    }
}
