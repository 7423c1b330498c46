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
                expansion.sources.append(InputSource(name: "-", path: nil))
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
                expansion.sources.append(InputSource(name: input, path: input))
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

    /// Reads the bytes, once, refusing inputs larger than any receipt input can be (``ReceiptInput/maximumInputSize``).
    func read() throws(ReceiptError) -> [UInt8] {
        try InputFile.read(path: path, name: name, limit: ReceiptInput.maximumInputSize)
    }
}
