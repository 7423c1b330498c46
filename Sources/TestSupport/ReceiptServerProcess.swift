public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built `receipt-server` running as a process of its own on a free loopback port, for tests of the real
/// executable against real stores: started with `--port 0`, found by the `listening` line it logs, killed with
/// SIGKILL by ``kill()`` or when the value is dropped.
///
/// Its standard error goes to a file rather than a pipe, so a chatty server can never block on a pipe nobody
/// drains, and a failing test can show the log (``log``).
public final class ReceiptServerProcess {
    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    /// Where its standard error (the log) goes.
    public let logFile: URL
    private let process: Process

    /// The server exited, or did not log `listening` in time.
    public struct NotStarted: Error, CustomStringConvertible {
        public let log: String
        public var description: String { "receipt-server did not start:\n\(log)" }
    }

    /// Starts `receipt-server --host 127.0.0.1 --port 0 arguments…` and waits for it to listen.
    /// - Parameters:
    ///   - environment: added to the test runner's environment, from which every inherited `RECEIPT_SERVER_*`
    ///     variable is removed first (so only what the test names configures the server).
    ///   - directory: the working directory, and where the log file goes.
    ///   - name: names the log file (`NAME.log`), so several servers can share a directory.
    ///   - startTimeout: how long to wait for the `listening` line.
    public init(
        _ arguments: [String], environment: [String: String] = [:], in directory: URL, name: String = "receipt-server",
        startTimeout: Duration = .seconds(60)
    ) async throws {
        logFile = directory.appendingPathComponent("\(name).log")
        FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process = Process()
        process.executableURL = SharedTestData.executable("receipt-server")
        process.arguments = ["--host", "127.0.0.1", "--port", "0", "--log-level", "info"] + arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RECEIPT_SERVER_") }
            .merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()

        let clock = ContinuousClock()
        let deadline = clock.now + startTimeout
        var found: Int?
        while found == nil {
            found = Self.listeningPort(in: Self.read(logFile))
            guard found == nil else { break }
            guard process.isRunning, clock.now < deadline else {
                Self.kill(process)
                throw NotStarted(log: Self.read(logFile))
            }
            try await Task.sleep(for: .milliseconds(20))  // polling the log, not waiting for an outcome
        }
        port = found ?? 0
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL {
        // swift-format-ignore: NeverForceUnwrap
        URL(string: "http://127.0.0.1:\(port)")!  // a literal scheme and host and a number: always a URL
    }

    /// Its process id.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Whether it still runs.
    public var isRunning: Bool { process.isRunning }

    /// What it has logged so far.
    public var log: String { Self.read(logFile) }

    /// Sends SIGKILL (no shutdown, no flush: what a crash or the OOM killer does) and waits for it to exit.
    public func kill() {
        Self.kill(process)
    }

    deinit { Self.kill(process) }

    private static func kill(_ process: Process) {
        guard process.isRunning else { return }
        _ = sendSignal(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The `port=N` of the `listening` line (`… host=127.0.0.1 port=N [ReceiptServer] listening`).
    static func listeningPort(in log: String) -> Int? {
        for line in log.split(separator: "\n") where line.hasSuffix(" listening") {
            guard let range = line.range(of: " port=") else { continue }
            let digits = line[range.upperBound...].prefix { $0.isNumber }
            if let port = Int(digits), port > 0 { return port }
        }
        return nil
    }

    private static func read(_ file: URL) -> String {
        (try? String(contentsOf: file, encoding: .utf8)) ?? ""
    }
}

/// The C library's `kill(2)`, under a name that the method ``ReceiptServerProcess/kill()`` does not shadow.
private func sendSignal(_ pid: Int32, _ signal: Int32) -> Int32 {
    kill(pid, signal)
}
