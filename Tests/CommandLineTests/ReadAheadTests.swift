import CFileRead
import Foundation
import ReceiptModel
import Synchronization
import TestSupport
import Testing

@testable import VerifyLocal

#if canImport(Glibc)
    import Glibc
#endif

/// `verify-local` reads a run's next files ahead once one of them is missing from the page cache (``ReadAhead``):
/// a file's first read asks for cached bytes only (``InputFile``), and says so when there are none.
@Suite(.timeLimit(.minutes(1)))
struct ReadAheadTests {
    /// Whether this system can evict a temporary file from the page cache and then tell that a read of it would
    /// wait for the disk (not on tmpfs, which keeps files in memory, nor where the kernel or the file system has no
    /// `RWF_NOWAIT` for buffered reads).
    static let uncachedReadsCanBeTold: Bool = {
        let bytes = [UInt8](repeating: 1, count: 8192)
        guard let folder = try? TemporaryFolder(), let file = try? folder.write("probe", bytes) else { return false }
        guard (try? evict(file)) != nil else { return false }
        let descriptor = open(file.path, O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 8192)
        return receipt_read_if_cached(descriptor, &buffer, buffer.count) < 0 && errno == EAGAIN
    }()
    static let evictionSkipMessage: Comment =
        "this system cannot evict a temporary file and tell an uncached read (tmpfs, or no RWF_NOWAIT)"

    /// Writes `file` back and drops its pages from the page cache, so that its next read goes to the disk.
    static func evict(_ file: URL) throws {
        #if os(Linux)
            let descriptor = open(file.path, O_RDONLY)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            try #require(fsync(descriptor) == 0)
            try #require(posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0)
        #else
            throw CancellationError()
        #endif
    }

    @Test(.enabled(if: uncachedReadsCanBeTold, evictionSkipMessage))
    func aFileMissingFromThePageCacheIsReportedAndReadWhole() throws {
        let folder = try TemporaryFolder()
        let bytes = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let file = try folder.write("a.receipt", bytes)
        try Self.evict(file)
        var found: [InputFile.CacheProbe] = []
        let cold = try InputFile.read(path: file.path, name: "a.receipt", limit: 1 << 20) { found.append($0) }
        #expect(cold == bytes)
        #expect(found == [.uncached])
        let warm = try InputFile.read(path: file.path, name: "a.receipt", limit: 1 << 20) { found.append($0) }
        #expect(warm == bytes)
        #expect(found == [.uncached], "a cached file is read without a word")
    }

    @Test func readsAheadOnlyOnceAFileWasFoundUncachedAndEachFileOnce() throws {
        // Standard input (no path) at 20 is never asked for.
        let paths: [String?] = (0..<200).map { $0 == 20 ? nil : "/nonexistent/receipt-\($0)" }
        let readAhead = ReadAhead(paths: paths, lookBehind: 16)
        readAhead.reading(0)
        readAhead.reading(5)
        #expect(readAhead.askedCount.load(ordering: .relaxed) == 0, "all cached so far: nothing asked for")
        readAhead.found(.uncached, reading: 40)  // 25..<105: what other workers may still hold, and ahead
        #expect(readAhead.askedCount.load(ordering: .relaxed) == 80)
        readAhead.reading(41)  // 105
        readAhead.reading(30)  // behind what was asked for: nothing new
        #expect(readAhead.askedCount.load(ordering: .relaxed) == 81)
        readAhead.reading(199)  // 184..<200, the end
        #expect(readAhead.askedCount.load(ordering: .relaxed) == 97)
        #expect(readAhead.probes)

        let fromTheStart = ReadAhead(paths: paths, lookBehind: 16)
        fromTheStart.found(.uncached, reading: 10)  // 0..<75 but 20
        #expect(fromTheStart.askedCount.load(ordering: .relaxed) == 74)
    }

    /// A file asked for stays open for its reader, who reads it from that descriptor (no second `open`); each is
    /// handed over once, at most ``ReadAhead/maximumOpen`` wait at a time, and those never taken are closed with the
    /// read-ahead.
    @Test func filesAskedForAreReadFromTheDescriptorsTheyWereAskedWith() throws {
        let folder = try TemporaryFolder()
        let count = ReadAhead.maximumOpen + 2 * ReadAhead.distance
        let files = try (0..<count).map { try folder.write("\($0).receipt", Array("receipt \($0)".utf8)) }
        let folderPath = folder.url.resolvingSymlinksInPath().path + "/"
        /// How many descriptors of this process name a file of the folder.
        func openInFolder() -> Int {
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return descriptors.filter { descriptor in
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
                return target?.hasPrefix(folderPath) ?? false
            }.count
        }

        let readAhead = ReadAhead(paths: files.map(\.path), lookBehind: 0)
        readAhead.found(.uncached, reading: 0)  // asks 1...distance
        #expect(openInFolder() == ReadAhead.distance)
        #expect(readAhead.take(0) == nil, "the file that was being read is not asked for")
        let first = try #require(readAhead.take(1))
        #expect(readAhead.take(1) == nil, "handed over once")
        // Read from that descriptor; the file is removed first, so a read that opened the path again would fail.
        try FileManager.default.removeItem(at: files[1])
        let bytes = try InputFile.read(path: files[1].path, name: "1.receipt", limit: 1024, opened: first)
        #expect(bytes == Array("receipt 1".utf8))
        #expect(openInFolder() == ReadAhead.distance - 1, "closed after the read")
        // Asking on without reading: no more than maximumOpen are kept open.
        for index in stride(from: 0, to: count, by: ReadAhead.distance) { readAhead.reading(index) }
        #expect(openInFolder() == ReadAhead.maximumOpen)

        // Those never taken are closed with the read-ahead.
        do {
            let other = ReadAhead(paths: files.map(\.path), lookBehind: 0)
            other.found(.uncached, reading: 1)
            #expect(openInFolder() == ReadAhead.maximumOpen + ReadAhead.distance)
            withExtendedLifetime(other) {}
        }
        #expect(openInFolder() == ReadAhead.maximumOpen)
        withExtendedLifetime(readAhead) {}

        // A run's inputs read through the read-ahead use the descriptors it holds.
        let run = InputSource.readingAhead(
            files.map { InputSource(name: $0.lastPathComponent, path: $0.path) }, lookBehind: 0)
        run[0].readAhead?.owner.found(.uncached, reading: 0)
        try FileManager.default.removeItem(at: files[2])
        #expect(try run[2].read() == Array("receipt 2".utf8))
        #expect(throws: ReceiptError.self) { try run[1].read() }  // removed before this run asked for it
    }

    @Test func aSystemThatCannotTellStopsTheProbes() {
        let readAhead = ReadAhead(paths: ["/nonexistent/a", "/nonexistent/b"], lookBehind: 16)
        readAhead.found(.unsupported, reading: 0)
        #expect(!readAhead.probes)
        readAhead.reading(1)
        #expect(readAhead.askedCount.load(ordering: .relaxed) == 0)
    }

    @Test(.enabled(if: uncachedReadsCanBeTold, evictionSkipMessage))
    func aFolderReadFromTheDiskReportsWhatACachedOneDoes() async throws {
        let fixtures = SharedTestData.packageRoot.appendingPathComponent("fixtures")
        let names = ["valid-sha1.receipt", "tampered-payload.receipt", "valid-large-1200-purchases.receipt"]
        let folder = try TemporaryFolder()
        var files: [URL] = []
        for copy in 0..<40 {
            for name in names {
                let bytes = try Data(contentsOf: fixtures.appendingPathComponent(name))
                files.append(try folder.write("\(copy)/\(name)", bytes))
            }
        }
        let command = CommandRunner("verify-local")
        let testRoot = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path
        let arguments = ["--format", "json", "--root", testRoot, folder.url.path]
        for file in files { try Self.evict(file) }
        let cold = try await command.run(arguments)
        let warm = try await command.run(arguments)
        #expect(cold.status == 1)
        #expect(try cold.jsonLines().count == files.count)
        #expect(cold.status == warm.status)
        #expect(cold.standardOutput == warm.standardOutput)
        #expect(cold.standardError == warm.standardError)
    }
}
