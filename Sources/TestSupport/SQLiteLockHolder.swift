public import Foundation

/// Another process holding a SQLite database's write lock (`BEGIN EXCLUSIVE`) until ``release()``: what a
/// backup tool or a stuck maintenance job does to a running server's ledger. Python's `sqlite3` module is the
/// other process (the `sqlite3` shell is rarely installed; python3 is, scripts/bootstrap needs it).
public final class SQLiteLockHolder {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    /// python3 could not take the lock.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    static let script = """
        import sqlite3, sys
        connection = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
        connection.execute("BEGIN EXCLUSIVE")
        print("locked", flush=True)
        sys.stdin.readline()
        connection.execute("ROLLBACK")
        connection.close()
        print("released", flush=True)
        """

    /// `python3` on `PATH`, or `nil`.
    public static let python: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Takes the lock on the database at `path` and returns once it holds it.
    public init(path: String) throws {
        guard let python = Self.python else { throw Failure(description: "python3 is not on PATH") }
        process.executableURL = python
        process.arguments = ["-c", Self.script, path]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard readLine() == "locked" else {
            process.terminate()
            process.waitUntilExit()
            throw Failure(description: "python3 could not lock \(path)")
        }
    }

    /// Ends the lock's transaction (nothing was written) and waits for the process to exit.
    public func release() throws {
        guard process.isRunning else { return }
        input.fileHandleForWriting.write(Data("\n".utf8))
        let line = readLine()
        process.waitUntilExit()
        guard line == "released", process.terminationStatus == 0 else {
            throw Failure(description: "python3 did not release the lock cleanly")
        }
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// One line of the script's output; empty at end of file.
    private func readLine() -> String {
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received += chunk
        }
        return String(decoding: received, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
