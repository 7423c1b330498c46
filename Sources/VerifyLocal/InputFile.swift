import CFileRead
import ReceiptModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads one input with POSIX `open`/`read`: each file read once, into one array sized from `fstat`, and never
/// more than one byte past the size limit.
enum InputFile {
    /// How much is read at a time when the size is not known up front (pipes, standard input) or was wrong.
    static let chunkSize = 64 * 1024

    /// What a file's first read found out about the page cache, when asked (``read(path:name:limit:opened:probe:)``).
    enum CacheProbe {
        /// The bytes were not in the page cache: reading them waits for the disk.
        case uncached
        /// The kernel or the file system cannot say (no `RWF_NOWAIT` for buffered reads there).
        case unsupported
    }

    /// The bytes of the file at `path`, or of standard input when `path` is `nil`.
    /// - Parameters:
    ///   - name: the input's name in error messages.
    ///   - limit: the largest accepted size; a larger regular file is refused from its size alone, a larger
    ///     stream after `limit + 1` bytes.
    ///   - opened: `path` already open (``ReadAhead/take(_:)``): read from it, and closed here, instead of opening
    ///     `path` again.
    ///   - probe: when given, the first read of a non-empty regular file asks for cached bytes only, and this is
    ///     told when there were none or the system cannot say; the bytes are then read as usual.
    /// - Throws: ``ReceiptModel/ReceiptError`` `unreadableInput` or `tooLarge`.
    static func read(
        path: String?, name: String, limit: Int, opened: Int32? = nil, probe: ((CacheProbe) -> Void)? = nil
    ) throws(ReceiptError) -> [UInt8] {
        let descriptor: Int32
        if let opened {
            descriptor = opened
        } else if let path {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ReceiptError(.unreadableInput, "cannot open \(name): \(POSIXErrorNumber.current)")
            }
        } else {
            descriptor = STDIN_FILENO
        }
        defer { if path != nil || opened != nil { close(descriptor) } }

        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw ReceiptError(.unreadableInput, "cannot read \(name): \(POSIXErrorNumber.current)")
        }
        let isRegularFile = info.st_mode & S_IFMT == S_IFREG
        guard info.st_mode & S_IFMT != S_IFDIR else {
            throw ReceiptError(.unreadableInput, "cannot read \(name): it is a folder")
        }
        // A regular file's size is known: one array of that size plus one byte, so that a file that grew since
        // fstat is noticed, and an oversized file is refused without reading it.
        let expected: Int
        if isRegularFile {
            guard let size = Int(exactly: info.st_size), size >= 0, size <= limit else {
                throw ReceiptError(.tooLarge, "\(name) is larger than \(limit) bytes")
            }
            expected = size
        } else {
            expected = min(chunkSize, limit)
        }
        // A regular file hands over what it holds in one read: one that brings the whole size has reached the end
        // (or the file grew, which the byte more asked for shows), so no second read is made to see the end.
        var bytes = try readUpTo(
            expected + 1, from: descriptor, name: name, enoughAt: isRegularFile ? expected : nil,
            probe: isRegularFile && expected > 0 ? probe : nil)
        // Short of the capacity: the end was reached. Full: the size was unknown or has changed; read on in chunks.
        if bytes.count == expected + 1 {
            while bytes.count <= limit {
                let chunk = try readUpTo(min(chunkSize, limit + 1 - bytes.count), from: descriptor, name: name)
                if chunk.isEmpty { break }
                bytes += chunk
            }
        }
        guard bytes.count <= limit else {
            throw ReceiptError(.tooLarge, "\(name) is larger than \(limit) bytes")
        }
        return bytes
    }

    /// Reads until `count` bytes or the end of the input, whichever comes first.
    /// - Parameter enough: stop as soon as a read has brought at least this many bytes.
    /// - Parameter probe: when given, the first read asks for cached bytes only, and this is told when there were
    ///   none (the read would wait for the disk) or the system cannot say; the bytes are then read as usual.
    static func readUpTo(
        _ count: Int, from descriptor: Int32, name: String, enoughAt enough: Int? = nil,
        probe: ((CacheProbe) -> Void)? = nil
    ) throws(ReceiptError) -> [UInt8] {
        var failure: POSIXErrorNumber?
        var probing = probe
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else { return }
            while initialized < count {
                if let report = probing {
                    probing = nil
                    let got = receipt_read_if_cached(descriptor, base, count)
                    if got > 0 {
                        initialized += got
                        if let enough, initialized >= enough { return }
                    } else if got == 0 {
                        return
                    } else {
                        // EAGAIN: not cached. EINTR: try again plainly. Anything else (a kernel or file system that
                        // cannot say, or an error the plain read below reports itself): the system cannot say.
                        let error = errno
                        if error == EAGAIN { report(.uncached) } else if error != EINTR { report(.unsupported) }
                    }
                    continue
                }
                let got = systemRead(descriptor, base + initialized, count - initialized)
                if got > 0 {
                    initialized += got
                    if let enough, initialized >= enough { return }
                } else if got == 0 {
                    return
                } else if errno != EINTR {
                    failure = .current
                    return
                }
            }
        }
        if let failure { throw ReceiptError(.unreadableInput, "cannot read \(name): \(failure)") }
        return bytes
    }
}

/// POSIX `read(2)`, named apart from ``InputFile/read(path:name:limit:opened:probe:)``.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
