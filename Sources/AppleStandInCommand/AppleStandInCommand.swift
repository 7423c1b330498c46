import AppleStandIn
import ArgumentParser
import Foundation
import Logging
import ReceiptCrypto
import ReceiptForge
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
        abstract:
            "Serve a stand-in for Apple's verifyReceipt and App Store Server API (production and sandbox) on loopback.",
        discussion: """
            Prints one JSON line once listening, with four members: production_url and sandbox_url \
            (http://127.0.0.1:PORT/verifyReceipt), production_api_url and sandbox_api_url (the base URLs, \
            http://127.0.0.1:PORT), then serves until interrupted. Scripts are comma-separated behaviours used once \
            each, in order, before the faithful answer: apple, status:N, retryable:N, http:N, malformed, drop, \
            huge:BYTES, slow:MILLISECONDS.

            The same listeners serve the App Store Server API (Apple's paths under the *_api_url: production is the \
            Production environment, sandbox Sandbox). --api-transactions N gives each environment one customer with N \
            monthly renewals (transaction ids 2000000000000001 + i in production, 1000000000000001 + i in sandbox, \
            order ids ORDER-<id>) and --api-notifications N that many notifications about them, signed one a second \
            up to a second before start-up (so Get Notification History within Apple's window, 30 days in Sandbox, \
            finds them all), every JWS minted under the test PKI of --certs. With --api-key, requests need a JWT \
            signed by that key with --api-key-id and --api-issuer, else 401. API scripts: apple, 429:MILLISECONDS \
            (Retry-After that long after arrival), error:STATUS:CODE, 401, forged:INDEX, malformed, drop, \
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

    @Option(help: ArgumentHelp("App Store Server API behaviours of production, in order.", valueName: "list"))
    var productionAPIScript: String?

    @Option(help: ArgumentHelp("App Store Server API behaviours of sandbox, in order.", valueName: "list"))
    var sandboxAPIScript: String?

    @Option(help: "The App Store Server API's bundle id (both environments).")
    var apiBundleID = "com.example.standin"

    @Option(help: "The app Apple id written in Production answers.")
    var apiAppAppleID: Int64 = 1_234_567_890

    @Option(help: "Transactions of the one demo customer in each environment (0: serve no API data).")
    var apiTransactions = 0

    @Option(help: "Notifications about the demo customer's transactions in each environment (at most one each).")
    var apiNotifications = 0

    @Option(
        help: ArgumentHelp(
            "Refuse API requests whose JWT this PEM private key's public half does not verify.", valueName: "file"))
    var apiKey: String?

    @Option(help: "The kid API tokens must carry (with --api-key).")
    var apiKeyID = "STANDIN01"

    @Option(help: "The iss API tokens must carry (with --api-key).")
    var apiIssuer = "57246542-96fe-1a63-e053-0824d011072a"

    @Option(
        help: ArgumentHelp(
            "The test PKI minting API answers (default: certs/ of the current directory or above the executable).",
            valueName: "dir"))
    var certs: String?

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
        if let apiKey {
            do {
                let pem = try String(contentsOfFile: apiKey, encoding: .utf8)
                configuration.serverAPIAuthorization = try ServerAPIAuthorization(
                    privateKeyPEM: pem, keyID: apiKeyID, issuerID: apiIssuer)
            } catch {
                throw ValidationError("cannot read the API key \(apiKey): \(error)")
            }
        }
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
        try serveDemoData(standIn, now: Date())
        for (environment, script) in [
            (ReceiptEnvironment.production, productionAPIScript), (.sandbox, sandboxAPIScript),
        ] {
            guard let script else { continue }
            var behaviours: [ServerAPIBehaviour] = []
            for token in script.split(separator: ",") {
                guard let behaviour = ServerAPIBehaviour(token: String(token)) else {
                    throw ValidationError("unknown API behaviour \(token) in the \(environment) API script")
                }
                behaviours.append(behaviour)
            }
            standIn.scriptAPI(environment, behaviours)
        }
        try await standIn.run(host: host, productionPort: productionPort, sandboxPort: sandboxPort) { addresses in
            var writer = JSONWriter()
            writer.beginObject()
            writer.field("production_url", addresses.productionURL)
            writer.field("sandbox_url", addresses.sandboxURL)
            writer.field("production_api_url", addresses.productionAPIBaseURL)
            writer.field("sandbox_api_url", addresses.sandboxAPIBaseURL)
            writer.endObject()
            // Unbuffered, so a parent process reading the first line sees it at once.
            FileHandle.standardOutput.write(Data((writer.string + "\n").utf8))
        }
    }

    /// One demo customer (and notifications about it) per environment, when asked for. The transactions keep fixed
    /// dates (2026 onwards, inside the test JWS leaf's validity); the notifications are signed in the seconds before
    /// `now`, oldest first: a backfill never asks for more than Apple's window before now (30 days in Sandbox), so
    /// notifications dated with their transactions would mostly fall outside it, or after now.
    private func serveDemoData(_ standIn: AppleStandIn, now: Date) throws {
        guard apiTransactions > 0 || apiNotifications > 0 else { return }
        guard let folder = certs ?? Self.defaultCerts() else {
            throw ValidationError("no certs/ folder found for minting API answers; pass --certs DIR")
        }
        let minter = JWSMinter(pki: TestPKI(directory: URL(fileURLWithPath: folder)))
        let start = ReceiptDate(clampingMillisecondsSince1970: 1_767_225_600_000)  // 2026-01-01
        for (environment, first) in [
            (ReceiptEnvironment.production, Int64(2_000_000_000_000_001)), (.sandbox, 1_000_000_000_000_001),
        ] {
            let transactions = ServerAPIData.customer(
                originalTransactionID: first, count: max(apiTransactions, apiNotifications),
                productID: "com.example.monthly",
                bundleID: apiBundleID, environment: environment, start: start)
            var notifications = ServerAPIData.notifications(
                about: Array(transactions.prefix(max(0, apiNotifications))), bundleID: apiBundleID,
                environment: environment, appAppleID: apiAppAppleID)
            let newest = Int64(now.timeIntervalSince1970 * 1000) - 1000
            for index in notifications.indices {
                notifications[index].signedDate = newest - Int64(notifications.count - 1 - index) * 1000
            }
            let data = ServerAPIData(
                bundleID: apiBundleID, appAppleID: apiAppAppleID,
                transactions: Array(transactions.prefix(max(0, apiTransactions))), notifications: notifications)
            do {
                try standIn.serveServerAPI(data, in: environment, minter: minter)
            } catch {
                throw ValidationError("cannot mint the API data under \(folder): \(error.reason)")
            }
        }
    }

    /// `certs/` holding the test JWS root, in the current directory or a folder above the executable.
    private static func defaultCerts() -> String? {
        var candidates = [FileManager.default.currentDirectoryPath]
        var folder = URL(fileURLWithPath: CommandLine.arguments.first ?? "").standardizedFileURL
            .deletingLastPathComponent()
        while folder.pathComponents.count > 1 {
            candidates.append(folder.path)
            folder.deleteLastPathComponent()
        }
        return candidates.map { URL(fileURLWithPath: $0).appendingPathComponent("certs").path }.first {
            FileManager.default.fileExists(atPath: $0 + "/test-jws-root.pem")
        }
    }
}
