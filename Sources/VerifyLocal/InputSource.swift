import ArgumentParser
import ReceiptModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One receipt to process: a file, or standard input.
struct InputSource: Sendable {
    /// The name shown in reports: the path as given or found, or `-`.
    let name: String
    /// The file to read; `nil` for standard input.
    let path: String?
    /// Whether ``path`` named a regular file when the inputs were expanded: only those are read ahead (opening a
    /// FIFO or a device has effects of its own).
    var isRegularFile = true
    /// The run's read-ahead and this input's place in it, once the run has numbered its inputs.
    var readAhead: (owner: ReadAhead, index: Int)?

    /// File name endings taken from folders; anything else in a folder (READMEs, JSON, keys) is
    /// skipped. Files named explicitly are always read.
    static let receiptExtensions: Set<String> = [
        "receipt", "der", "p7", "p7m", "p7s", "pkcs7", "bin", "b64", "base64", "txt", "jws",
    ]

    /// ``receiptExtensions``' bytes (lower-case ASCII), for comparing names without making Strings of them.
    static let receiptExtensionBytes = receiptExtensions.map { Array($0.utf8) }

    /// The length of the longest of ``receiptExtensions``.
    static let longestReceiptExtension = receiptExtensions.map(\.utf8.count).max() ?? 0

    /// What the command-line inputs expand to.
    struct Expansion {
        var sources: [InputSource] = []
        /// Lines for standard error: folders with no receipt files, links not followed, unreadable folders.
        var notes: [FolderWalk.Note] = []
    }

    /// Expands command-line inputs: folders recursively in path order (``FolderWalk``), files and `-` as they are.
    /// - Throws: `ValidationError` (a usage error) for an input that does not exist or a folder that cannot
    ///   be opened.
    static func expand(_ inputs: [String]) throws -> Expansion {
        var expansion = Expansion()
        for input in inputs {
            if input == "-" {
                expansion.sources.append(InputSource(name: "-", path: nil, isRegularFile: false))
                continue
            }
            // stat follows links: a link to a folder named on the command line is that folder.
            var info = stat()
            guard stat(input, &info) == 0 else {
                let error = POSIXErrorNumber.current
                throw ValidationError(
                    error.value == ENOENT ? "no such file or folder: \(input)" : "cannot read \(input): \(error)")
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                let isRegularFile = info.st_mode & S_IFMT == S_IFREG
                expansion.sources.append(InputSource(name: input, path: input, isRegularFile: isRegularFile))
                continue
            }
            switch FolderWalk.files(under: input) {
            case .failure(let error):
                throw ValidationError("cannot read the folder \(input): \(error)")
            case .success(let walk):
                expansion.notes += walk.notes
                if walk.files.isEmpty {
                    expansion.notes.append(FolderWalk.Note(message: "no receipt files in \(input)", failsTheRun: false))
                }
                expansion.sources += walk.files.map { InputSource(name: $0, path: $0) }
            }
        }
        return expansion
    }

    /// Reads the bytes, once, refusing inputs larger than any receipt input can be (``ReceiptInput/maximumInputSize``),
    /// and keeps the run's read-ahead going (``ReadAhead``).
    func read() throws(ReceiptError) -> [UInt8] {
        let limit = ReceiptInput.maximumInputSize
        guard let (owner, index) = readAhead else { return try InputFile.read(path: path, name: name, limit: limit) }
        owner.reading(index)
        let report: ((InputFile.CacheProbe) -> Void)? = owner.probes ? { owner.found($0, reading: index) } : nil
        return try InputFile.read(path: path, name: name, limit: limit, opened: owner.take(index), probe: report)
    }

    /// `sources`, each told the read-ahead of the run they make up in this order (``ReadAhead``); `lookBehind` is
    /// how many inputs before one being read may still be waiting to be read.
    static func readingAhead(_ sources: [InputSource], lookBehind: Int) -> [InputSource] {
        let readAhead = ReadAhead(paths: sources.map { $0.isRegularFile ? $0.path : nil }, lookBehind: lookBehind)
        return sources.enumerated().map { index, source in
            var source = source
            source.readAhead = (readAhead, index)
            return source
        }
    }
}
