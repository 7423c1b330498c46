#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The receipt files under one folder, found with `opendir`/`readdir`, and `stat` only where `readdir`'s entry
/// type leaves a question (links, and file systems that do not say).
///
/// Recursive; hidden entries (names starting with a dot) skipped; only regular files whose name ends in one
/// of ``InputSource/receiptExtensions`` taken; sorted by path. Symbolic links are followed, to files and to
/// folders. A link to a folder already on the current path (the folder itself or one above it, compared by
/// device and inode) would lead round for ever: it is not followed, and a ``Note`` says so. A folder reached
/// along two different paths is walked along both, as `find -L` does, and its files are listed under both
/// names.
///
/// Three limits bound what a tree of links can cost: folders deeper than ``maximumDepth`` below the root are
/// not entered, at most ``maximumFolders`` folders are opened and at most ``maximumFiles`` files listed in one
/// walk (links can make a small tree reach the same folders along exponentially many paths). Any of them,
/// when reached, is a note that fails the run.
struct FolderWalk {
    /// How deep below the root a folder may lie and still be walked (the walk recurses once per level).
    static let maximumDepth = 64
    /// How many folders one walk opens at most.
    static let maximumFolders = 100_000
    /// How many files one walk lists at most.
    static let maximumFiles = 1_000_000

    /// Something the walk could not take, for standard error.
    struct Note {
        let message: String
        /// `true` when receipts may have gone unverified (an unreadable folder): the run must not exit 0.
        let failsTheRun: Bool
    }

    /// A folder's identity, whatever the path to it.
    private struct FolderID: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    /// The receipt files found, named by their path: the root as given, `/`, the path below it.
    private var files: [String] = []
    private var notes: [Note] = []
    /// The folders on the path being walked, outermost first, with the path each was reached by.
    private var ancestors: [(id: FolderID, path: String)] = []
    /// Folders opened so far.
    private var opened = 0
    /// Whether a limit stopped the walk (noted once).
    private var limited = false

    /// Walks `root`, a folder as the user named it.
    /// - Returns: the files, sorted, and the notes; or the `errno` value saying why `root` cannot be read.
    static func files(under root: String) -> Result<(files: [String], notes: [Note]), POSIXErrorNumber> {
        var walk = FolderWalk()
        if let error = walk.walk(root) { return .failure(error) }
        // Sorted as whole paths, so the order does not depend on how the folders are laid out on disk.
        return .success((walk.files.sorted(), walk.notes))
    }

    /// Lists one folder and descends into its subfolders.
    /// - Returns: `nil`, or the `errno` value when the folder cannot be opened.
    private mutating func walk(_ path: String) -> POSIXErrorNumber? {
        if let limit = reachedLimit {
            noteLimit(path, limit)
            return nil
        }
        guard let folder = opendir(path) else { return POSIXErrorNumber(errno) }
        opened += 1
        var info = stat()
        guard fstat(dirfd(folder), &info) == 0 else {
            let error = POSIXErrorNumber(errno)
            closedir(folder)
            return error
        }
        let id = FolderID(device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(info.st_ino))
        if let earlier = ancestors.first(where: { $0.id == id }) {
            closedir(folder)
            notes.append(
                Note(
                    message:
                        "not following \(path): it leads back to \(earlier.path), a folder on its own path (a link loop)",
                    failsTheRun: false))
            return nil
        }
        let prefix = path.hasSuffix("/") ? path : path + "/"
        var subfolders: [String] = []
        while true {
            // readdir answers NULL both at the end and on an error; only errno tells them apart.
            errno = 0
            guard let entry = readdir(folder) else {
                if errno != 0 {
                    notes.append(
                        Note(
                            message: "cannot read all of the folder \(path): \(POSIXErrorNumber(errno))",
                            failsTheRun: true))
                }
                break
            }
            let type = Int(entry.pointee.d_type)
            let name = withUnsafeBytes(of: &entry.pointee.d_name) { bytes -> String? in
                // d_name is NUL-terminated; hidden entries (`.`, `..` included), and regular files not named like a
                // receipt (in a folder of receipts, its other files), are skipped before any String.
                guard bytes.first != UInt8(ascii: ".") else { return nil }
                let name = bytes.prefix { $0 != 0 }
                guard type != Int(DT_REG) || Self.hasReceiptExtension(name) else { return nil }
                return String(decoding: name, as: UTF8.self)
            }
            guard let name, !name.isEmpty else { continue }
            let entryPath = prefix + name
            switch type {
            case Int(DT_DIR):
                subfolders.append(entryPath)
            case Int(DT_REG):
                take(entryPath)  // named like a receipt: checked above
            case Int(DT_LNK), Int(DT_UNKNOWN):
                // Follow the link (or ask a file system that gave no type): stat describes what it leads to.
                var target = stat()
                if stat(entryPath, &target) != 0 {
                    // A broken link named like a receipt is listed, so that reading it reports the failure.
                    if Self.hasReceiptExtension(name.utf8) { take(entryPath) }
                } else if target.st_mode & S_IFMT == S_IFDIR {
                    subfolders.append(entryPath)
                } else if target.st_mode & S_IFMT == S_IFREG, Self.hasReceiptExtension(name.utf8) {
                    take(entryPath)
                }
            default:
                continue  // FIFOs, sockets, devices: not receipts in a folder, and reading one may block
            }
        }
        closedir(folder)  // closed before descending: one folder open at a time, however deep the tree

        ancestors.append((id, path))
        for subfolder in subfolders {
            if let error = walk(subfolder) {
                notes.append(Note(message: "cannot read the folder \(subfolder): \(error)", failsTheRun: true))
            }
        }
        ancestors.removeLast()
        return nil
    }

    /// The limit the walk has reached, in words, if any.
    private var reachedLimit: String? {
        if ancestors.count > Self.maximumDepth { return "\(Self.maximumDepth) levels of folders" }
        if opened >= Self.maximumFolders { return "\(Self.maximumFolders) folders" }
        if files.count >= Self.maximumFiles { return "\(Self.maximumFiles) files" }
        return nil
    }

    /// Lists a file, unless the walk already lists ``maximumFiles``.
    private mutating func take(_ file: String) {
        guard files.count < Self.maximumFiles else {
            noteLimit(file, "\(Self.maximumFiles) files")
            return
        }
        files.append(file)
    }

    /// Notes, once per walk, that `path` and what follows it are not walked because of `limit`.
    private mutating func noteLimit(_ path: String, _ limit: String) {
        guard !limited else { return }
        limited = true
        notes.append(
            Note(
                message: "not walking \(path) and what follows: one walk takes at most \(limit)", failsTheRun: true))
    }

    /// `true` when the bytes after the name's last dot are one of ``InputSource/receiptExtensions`` in any ASCII case
    /// (`.RECEIPT`, `.Der`). Compared byte by byte: no String, no allocation, for each file of a folder.
    static func hasReceiptExtension(_ name: some BidirectionalCollection<UInt8>) -> Bool {
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return false }
        let suffix = name[name.index(after: dot)...]
        let length = suffix.count
        // Longer suffixes cannot match: skip comparing them.
        guard length > 0, length <= InputSource.longestReceiptExtension else { return false }
        return InputSource.receiptExtensionBytes.contains { candidate in
            candidate.count == length
                && zip(candidate, suffix).allSatisfy { expected, byte in
                    // ASCII upper case to lower: A-Z are 0x41-0x5A, a-z 0x61-0x7A.
                    expected == ((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
                }
        }
    }
}
