public import Foundation

/// The `openssl` command, for tests that cross-check against OpenSSL's own tools or make throwaway
/// certificates (scripts/bootstrap installs it; tests that need it are skipped when it is missing).
public enum OpenSSLTool {
    /// `openssl` on `PATH`, or `nil`.
    public static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("openssl") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs `openssl arguments…` (in `directory`, when given) with its output discarded; returns the exit status.
    public static func run(_ arguments: [String], in directory: URL? = nil) throws -> Int32 {
        guard let executable else { throw CocoaError(.executableNotLoadable) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
