import AppleStandIn
import ArgumentParser
import Foundation
import Logging
@_spi(Fuzzing) import ReceiptModel
import ReceiptVerification

/// `apple-standin`: Apple's verifyReceipt endpoints on loopback, for trying the remote fallback by hand
/// and for end-to-end tests of `verify-local --remote-url`.
// The availability makes ArgumentParser pick the asynchronous entry point on every platform.
@available(macOS 10.15, *)
@main
struct AppleStandInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apple-standin",
        abstract: "Serve a stand-in for Apple's verifyReceipt (production and sandbox) on loopback.",
        discussion: """
            Prints one JSON line with both URLs once listening, e.g.
            {"production_url":"http://127.0.0.1:40001/verifyReceipt","sandbox_url":"http://127.0.0.1:40002/verifyReceipt"}
            and serves until interrupted. Scripts are comma-separated behaviours used once each, in order,
            before the faithful answer: apple, status:N, retryable:N, http:N, malformed, drop, huge:BYTES,
            slow:MILLISECONDS.
            """)

    @Option(help: "The address to bind.")
    var host = "127.0.0.1"

    @Option(help: "The production listener's port (0: any free port).")
    var productionPort = 0

    @Option(help: "The sandbox listener's port (0: any free port).")
    var sandboxPort = 0

    @Option(help: ArgumentHelp("Behaviours of the production endpoint, in order.", valueName: "list"))
    var productionScript: String?

    @Option(help: ArgumentHelp("Behaviours of the sandbox endpoint, in order.", valueName: "list"))
    var sandboxScript: String?

    @Option(
        name: .customLong("root"),
        help: ArgumentHelp(
            "Check signatures against this root too (21003 when a receipt is proven false); repeatable.",
            valueName: "file"))
    var roots: [String] = []

    @Flag(help: "Check signatures (with Apple's pinned roots and --root) and answer 21003 for receipts proven false.")
    var verify = false

    @Option(
        help: ArgumentHelp(
            "Answer 21004 to any other password (read from APPLE_STANDIN_SHARED_SECRET when absent).",
            valueName: "secret"))
    var sharedSecret: String?

    func run() async throws {
        var configuration = AppleStandIn.Configuration(
            now: { ReceiptDate(clockSecondsSince1970: Date().timeIntervalSince1970) })
        if verify || !roots.isEmpty {
            var anchors = TrustAnchors()
            for root in roots {
                do { try anchors.addRoots(fromPath: root) } catch {
                    throw ValidationError("cannot load roots from \(root): \(error.reason)")
                }
            }
            configuration.verifier = ReceiptVerifier(configuration: .init(trustAnchors: anchors))
        }
        configuration.sharedSecret = sharedSecret ?? ProcessInfo.processInfo.environment["APPLE_STANDIN_SHARED_SECRET"]
        var logger = Logger(label: "apple-standin")
        logger.logLevel = .warning
        let standIn = AppleStandIn(configuration: configuration, logger: logger)
        for (endpoint, script) in [(ReceiptEnvironment.production, productionScript), (.sandbox, sandboxScript)] {
            guard let script else { continue }
            var behaviours: [StandInBehaviour] = []
            for token in script.split(separator: ",") {
                guard let behaviour = StandInBehaviour(token: String(token)) else {
                    throw ValidationError("unknown behaviour \(token) in the \(endpoint) script")
                }
                behaviours.append(behaviour)
            }
            standIn.script(endpoint, behaviours)
        }
        try await standIn.run(host: host, productionPort: productionPort, sandboxPort: sandboxPort) { addresses in
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("production_url", addresses.productionURL)
            writer.field("sandbox_url", addresses.sandboxURL)
            writer.endObject()
            // Unbuffered, so a parent process reading the first line sees it at once.
            FileHandle.standardOutput.write(Data((writer.string + "\n").utf8))
        }
    }
}
