public import Foundation

/// Runs a built executable of this package and captures what it printed and its exit status.
public struct CommandRunner: Sendable {
    public struct Outcome: Sendable {
        public let status: Int32
        public let standardOutput: String
        public let standardError: String

        /// Each non-empty output line parsed as a JSON object.
        public func jsonLines() throws -> [[String: Any]] {
            try standardOutput.split(separator: "\n").map { line in
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                    throw CocoaError(.propertyListReadCorrupt)
                }
                return object
            }
        }
    }

    public let executable: URL

    /// The executable `name` built beside the test runner.
    public init(_ name: String) {
        executable = SharedTestData.executable(name)
    }

    /// Runs the executable and waits for it on a thread of its own (``OwnThread``), not on one of Swift
    /// concurrency's: two tests waiting there on long runs (a folder of links, thousands of receipts) once held both
    /// of the runner's threads for 15 seconds.
    /// - Parameters:
    ///   - environment: variables added to (or replacing) the test runner's own.
    ///   - directory: the working directory; the test runner's own by default.
    public func run(
        _ arguments: [String], standardInput: Data? = nil, environment: [String: String] = [:],
        in directory: URL? = nil
    ) async throws -> Outcome {
        try await OwnThread.run {
            try runAndWait(arguments, standardInput: standardInput, environment: environment, in: directory)
        }
    }

    private func runAndWait(
        _ arguments: [String], standardInput: Data?, environment: [String: String], in directory: URL?
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let standardInput { input.fileHandleForWriting.write(standardInput) }
        try input.fileHandleForWriting.close()
        // Drain both pipes before waiting, so a large output cannot block the child.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}
