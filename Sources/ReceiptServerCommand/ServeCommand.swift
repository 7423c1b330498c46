import ArgumentParser
import Foundation
import Logging
import ReceiptIntake
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import ReceiptWebhooks

/// `receipt-server [serve]`: a drop-in, local-first verifyReceipt for backends. A thin shell: flags and
/// environment variables become a ``ReceiptServerConfiguration``, a verifier and a ledger, then it runs.
@available(macOS 10.15, *)
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve Apple's verifyReceipt contract, verified locally (the default command).",
        discussion: """
            Every flag can also come from the environment variable in brackets; a flag wins.

            The shared secret comes only from RECEIPT_SERVER_SHARED_SECRET (never a flag, never logged).

            The backend's bearer tokens come only from RECEIPT_SERVER_API_TOKENS (comma-separated, never logged): \
            GET /v1/transactions/{id}, GET /v1/entitlements, POST /v1/sync and POST /v1/verify naming an account need \
            one; without any, those routes are served only while the server listens on loopback.

            With the ledger on (the default), at least one --bundle-id is required.

            With an App Store Server API key (--app-store-key, --app-store-key-id, --app-store-issuer), the server \
            serves POST /v1/sync, answers lapsed subscriptions from Apple's signed statuses, and backfills the \
            notifications it missed at start (docs/server-api.md).

            With --webhook-url, the ledger records events (purchases, entitlement changes, refunds, conflicts) and the \
            server POSTs each, signed with RECEIPT_SERVER_WEBHOOK_SECRET (never a flag, never logged), retrying until \
            it is delivered or older than --webhook-max-age (`receipt-server webhooks list|replay`).
            """)

    @Option(help: "Address to bind [RECEIPT_SERVER_HOST]. Default 127.0.0.1.")
    var host: String?

    @Option(help: "TCP port; 0 picks a free one [RECEIPT_SERVER_PORT]. Default 8080.")
    var port: Int?

    @OptionGroup(title: "Trust and policy")
    var trust: TrustOptions

    @OptionGroup(title: "Ledger")
    var ledgerOptions: LedgerOptions

    @OptionGroup(title: "App Store Server API")
    var appStoreAPI: AppStoreAPIOptions

    @OptionGroup(title: "Webhooks")
    var webhookOptions: WebhookOptions

    @Option(
        help: ArgumentHelp(
            "Validate chains at the receipt's creation date or at the time of the request [RECEIPT_SERVER_AT]. Default creation.",
            valueName: "creation|now"))
    var at: String?

    @Flag(
        help:
            "Answer both endpoints for receipts of any environment instead of 21007/21008 [RECEIPT_SERVER_ACCEPT_ANY_ENVIRONMENT=1]."
    )
    var acceptAnyEnvironment = false

    @Flag(
        help:
            "Ask Apple's verifyReceipt when a receipt cannot be decided locally, or for renewals when a shared secret is sent [RECEIPT_SERVER_REMOTE_FALLBACK=1]. Default off."
    )
    var remoteFallback = false

    @Option(
        name: .customLong("apple-production-url"),
        help: ArgumentHelp(
            "Apple's production verifyReceipt URL [RECEIPT_SERVER_APPLE_PRODUCTION_URL].", valueName: "url"))
    var appleProductionURL: String?

    @Option(
        name: .customLong("apple-sandbox-url"),
        help: ArgumentHelp("Apple's sandbox verifyReceipt URL [RECEIPT_SERVER_APPLE_SANDBOX_URL].", valueName: "url"))
    var appleSandboxURL: String?

    @Option(
        name: .customLong("remote-deadline"),
        help: ArgumentHelp(
            "Seconds one remote verification may take, retries included [RECEIPT_SERVER_REMOTE_DEADLINE]. Default 30.",
            valueName: "seconds"))
    var remoteDeadline: Double?

    @Option(
        name: .customLong("max-body-size"),
        help: ArgumentHelp(
            "Largest request body in bytes [RECEIPT_SERVER_MAX_BODY_SIZE]. Default 1048576.", valueName: "bytes"))
    var maximumBodySize: Int?

    @Option(
        name: .customLong("max-in-flight"),
        help: ArgumentHelp(
            "Most requests verified at once; more get 503 [RECEIPT_SERVER_MAX_IN_FLIGHT]. Default 256.", valueName: "n")
    )
    var maximumInFlight: Int?

    @Option(
        name: .customLong("body-timeout"),
        help: ArgumentHelp(
            "Seconds to wait for a request body [RECEIPT_SERVER_BODY_TIMEOUT]. Default 10.", valueName: "seconds"))
    var bodyTimeout: Double?

    @Option(
        name: .customLong("idle-timeout"),
        help: ArgumentHelp(
            "Seconds before an idle connection is closed [RECEIPT_SERVER_IDLE_TIMEOUT]. Default 60.",
            valueName: "seconds"))
    var idleTimeout: Double?

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "trace, debug, info, notice, warning, error or critical [RECEIPT_SERVER_LOG_LEVEL]. Default info.",
            valueName: "level"))
    var logLevel: String?

    func run() async throws {
        let env = ServeEnvironment()
        let logger = try bootstrapLogging(env)
        let (verifier, bundles, environments) = try trust.verifier(env)
        let configuration = try serverConfiguration(env)
        let (decider, remoteDescription) = try decider(verifier, env, logger: logger)
        var ledgerSettings = try ledgerOptions.ledgerSettings(env, bundles: bundles)
        let webhooks = try webhookOptions.configuration(env, ledger: ledgerSettings.location)
        // Events are recorded only while someone delivers them: without a URL the outbox would only grow.
        ledgerSettings.storeOptions.recordsEvents = webhooks != nil
        let serverAPI = try appStoreAPI.client(
            verifier: verifier, notificationPolicy: IntakeRules().notifications, env, logger: logger)
        let openedLedger = try await LedgerOptions.openLedger(ledgerSettings, logger: logger)
        let anchors = verifier.configuration.trustAnchors

        logger.info(
            "starting",
            metadata: [
                "configuration": "\(configuration)", "extra_roots": "\(anchors.additionalRoots.count)",
                "allow_xcode": "\(anchors.allowsXcodeStoreKitTesting)", "bundle_ids": "\(bundles)",
                "environments": "\(environments)", "remote_fallback": "\(remoteDescription)",
                "ledger": "\(ledgerSettings.location)", "products": "\(ledgerSettings.catalogue.kinds.count)",
                "on_conflict": "\(ledgerSettings.onConflict)",
                "app_store_server_api":
                    "\(serverAPI.map { "on (\($0.configuration.productionURL), \($0.configuration.sandboxURL), \($0.configuration.requestsPerSecond)/s)" } ?? "off")",
                "webhooks": "\(webhooks.map { "on (\($0))" } ?? "off")",
            ])
        do {
            try await ReceiptService(
                configuration: configuration, decider: decider, ledger: openedLedger, serverAPI: serverAPI,
                webhooks: webhooks, logger: logger
            )
            .run()
        } catch {
            await openedLedger?.close()
            throw error
        }
        await openedLedger?.close()
        logger.info("stopped")
        LogSink.standardError.flush()
    }

    /// Standard error at `--log-level`, for every logger of the process, buffered (``LogSink``).
    func bootstrapLogging(_ env: ServeEnvironment) throws -> Logger {
        let levelName = logLevel ?? env.text("RECEIPT_SERVER_LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelName) else {
            throw ValidationError("--log-level takes trace, debug, info, notice, warning, error or critical")
        }
        // Buffered: the access log writes a line per request (LogSink: warnings at once, the rest every 100 ms).
        LoggingSystem.bootstrap { label in BufferedLogHandler(label: label, level: level) }
        return Logger(label: "receipt-server")
    }

    /// Where to listen, the validation time, the shared secret, the backend's tokens and the limits.
    func serverConfiguration(_ env: ServeEnvironment) throws -> ReceiptServerConfiguration {
        let atName = at ?? env.text("RECEIPT_SERVER_AT") ?? "creation"
        guard let validationTime = ReceiptServerConfiguration.validationTime(named: atName),
            validationTime == .receiptCreation || validationTime == .now
        else {
            throw ValidationError("--at takes creation or now")
        }
        var configuration = ReceiptServerConfiguration(
            host: host ?? env.text("RECEIPT_SERVER_HOST") ?? "127.0.0.1",
            port: try Self.validPort(env.number(port, "RECEIPT_SERVER_PORT", default: 8080)),
            validationTime: validationTime,
            acceptsAnyEnvironment: acceptAnyEnvironment || env.flag("RECEIPT_SERVER_ACCEPT_ANY_ENVIRONMENT"),
            sharedSecret: env.text("RECEIPT_SERVER_SHARED_SECRET"),
            maximumBodySize: try env.number(maximumBodySize, "RECEIPT_SERVER_MAX_BODY_SIZE", default: 1 << 20),
            maximumInFlight: try env.number(maximumInFlight, "RECEIPT_SERVER_MAX_IN_FLIGHT", default: 256),
            bodyTimeout: try env.seconds(bodyTimeout, "--body-timeout", "RECEIPT_SERVER_BODY_TIMEOUT", default: 10),
            idleTimeout: try env.seconds(idleTimeout, "--idle-timeout", "RECEIPT_SERVER_IDLE_TIMEOUT", default: 60))
        configuration.apiTokens = env.list([], "RECEIPT_SERVER_API_TOKENS").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        .filter { !$0.isEmpty }
        guard configuration.maximumBodySize > 0, configuration.maximumInFlight > 0 else {
            throw ValidationError("--max-body-size and --max-in-flight must be positive")
        }
        return configuration
    }

    /// The local verifier, with Apple's verifyReceipt behind it when the remote fallback is on; and a description
    /// of the remote side for the start-up log.
    func decider(_ verifier: ReceiptVerifier, _ env: ServeEnvironment, logger: Logger) throws
        -> (any ReceiptDecider, String)
    {
        guard remoteFallback || env.flag("RECEIPT_SERVER_REMOTE_FALLBACK") else {
            return (FallbackVerifier(verifier: verifier), "off")
        }
        let deadline = try env.seconds(
            remoteDeadline, "--remote-deadline", "RECEIPT_SERVER_REMOTE_DEADLINE", default: 30)
        let fallback: FallbackVerifier
        do throws(ServerError) {
            fallback = try FallbackVerifier.apple(
                verifier: verifier,
                productionURL: appleProductionURL ?? env.text("RECEIPT_SERVER_APPLE_PRODUCTION_URL"),
                sandboxURL: appleSandboxURL ?? env.text("RECEIPT_SERVER_APPLE_SANDBOX_URL"),
                deadline: deadline, logger: logger)
        } catch {
            throw ValidationError(error.reason)
        }
        let urls = fallback.remoteURLs
        return (fallback, "on (production \(urls?.production ?? "?"), sandbox \(urls?.sandbox ?? "?"))")
    }

    /// `port` when it is a TCP port number (0 asks for a free one).
    static func validPort(_ port: Int) throws -> Int {
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port [RECEIPT_SERVER_PORT] takes 0 to 65535, not \(port)")
        }
        return port
    }
}
