import Foundation

/// Runs the `openssl` command-line tool, which makes the throwaway keys and certificates of ``HostilePKI``
/// (the way the test suites make theirs): the forge signs receipts, it does not issue certificates.
enum OpenSSLCommand {
    /// `openssl` on `PATH`.
    static let executable: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("openssl") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs `openssl arguments…` in `directory`; throws with its standard error unless it exits 0.
    static func run(_ arguments: [String], in directory: URL) throws(HostileInputError) {
        guard let executable else { throw HostileInputError("the openssl command is not on PATH") }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw HostileInputError("cannot start openssl: \(error)")
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HostileInputError(
                "openssl \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                    + String(decoding: message, as: UTF8.self))
        }
    }
}
