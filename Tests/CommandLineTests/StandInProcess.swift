import Foundation
import TestSupport

/// The built `apple-standin` executable, running on 127.0.0.1 ephemeral ports for one test.
final class StandInProcess {
    let process = Process()
    let productionURL: String
    let sandboxURL: String
    /// The App Store Server API base URLs (`http://127.0.0.1:PORT`).
    let productionAPIURL: String
    let sandboxAPIURL: String

    struct NotStarted: Error {}

    /// Starts it and reads the first line it prints: `{"production_url": …, "sandbox_url": …}` (on a thread of its
    /// own, ``OwnThread``: a start on a loaded machine must not hold one of the test runner's threads).
    init(_ arguments: [String] = []) async throws {
        process.executableURL = SharedTestData.executable("apple-standin")
        process.arguments = ["--host", "127.0.0.1"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reading = output.fileHandleForReading
        let received = try await OwnThread.run {
            var received = Data()
            while !received.contains(UInt8(ascii: "\n")) {
                let chunk = reading.availableData
                if chunk.isEmpty { break }  // it exited
                received += chunk
            }
            return received
        }
        let line = received.split(separator: UInt8(ascii: "\n")).first ?? Data()
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: String],
            let production = object["production_url"], let sandbox = object["sandbox_url"],
            production.hasPrefix("http://127.0.0.1:")
        else {
            process.terminate()
            throw NotStarted()
        }
        productionURL = production
        sandboxURL = sandbox
        productionAPIURL = object["production_api_url"] ?? ""
        sandboxAPIURL = object["sandbox_api_url"] ?? ""
    }

    /// `--remote-url … --remote-sandbox-url …` for verify-local.
    var remoteArguments: [String] { ["--remote-url", productionURL, "--remote-sandbox-url", sandboxURL] }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}
