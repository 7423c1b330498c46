import ArgumentParser
import Foundation
import Logging
import ReceiptIntake
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification

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
            The backend's bearer tokens come only from RECEIPT_SERVER_API_TOKENS (comma-separated, never logged):
            GET /v1/transactions/{id}, GET /v1/entitlements and POST /v1/verify naming an account need one; without
            any, those routes are served only while the server listens on loopback.
            With the ledger on (the default), at least one --bundle-id is required.
            """)

    @Option(help: "Address to bind [RECEIPT_SERVER_HOST]. Default 127.0.0.1.")
    var host: String?

    @Option(help: "TCP port; 0 picks a free one [RECEIPT_SERVER_PORT]. Default 8080.")
    var port: Int?

    @Option(
        name: .customLong("root"),
        help: ArgumentHelp(
            "Trust this root certificate too (PEM or DER); repeatable [RECEIPT_SERVER_ROOT, ':'-separated].",
            valueName: "file"))
    var roots: [String] = []

    @Option(
        name: .customLong("roots"),
        help: ArgumentHelp("Trust every certificate in this folder too [RECEIPT_SERVER_ROOTS].", valueName: "dir"))
    var rootFolders: [String] = []

    @Option(
        name: .customLong("bundle-id"),
        help: ArgumentHelp(
            "Accept only this bundle id; repeatable [RECEIPT_SERVER_BUNDLE_IDS, ','-separated].", valueName: "id"))
    var bundleIDs: [String] = []

    @Option(
        help: ArgumentHelp(
            "Accept only this environment (Production, Sandbox, Xcode); repeatable [RECEIPT_SERVER_ENVIRONMENTS].",
            valueName: "name"))
    var environment: [String] = []
    @Option(
        name: .customLong("app-apple-id"),
        help: ArgumentHelp(
            "JWS and notifications: a Production payload must name this app Apple id (Apple leaves it out in Sandbox, which is not checked on it, as Apple's verifiers do); needed for Production notifications; repeatable [RECEIPT_SERVER_APP_APPLE_IDS, ','-separated].",
            valueName: "id"))
    var appAppleIDs: [Int64] = []
    @Option(
        name: .customLong("max-jws-age"),
        help: ArgumentHelp(
            "JWS and notifications: refuse one signed longer ago than this many seconds [RECEIPT_SERVER_MAX_JWS_AGE]. Default: no limit.",
            valueName: "seconds"))
    var maximumJWSAge: Double?

    @Option(
        help: ArgumentHelp(
            "Validate chains at the receipt's creation date or at the time of the request [RECEIPT_SERVER_AT]. Default creation.",
            valueName: "creation|now"))
    var at: String?

    @Flag(help: "Trust Xcode's StoreKit Testing certificate [RECEIPT_SERVER_ALLOW_XCODE=1].")
    var allowXcode = false

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
        help: ArgumentHelp(
            "Where the ledger is: sqlite:PATH, postgres://USER@HOST:PORT/DATABASE or none [RECEIPT_SERVER_LEDGER]. Default sqlite:receipt-ledger.sqlite. A PostgreSQL password comes from RECEIPT_SERVER_LEDGER_PASSWORD or the URL. A SQLite write waits RECEIPT_SERVER_LEDGER_BUSY_TIMEOUT seconds (default 5) for another process's lock, a PostgreSQL call RECEIPT_SERVER_LEDGER_DEADLINE seconds (default 10), then answers 503 ledger.unavailable. SQLite syncs each commit that changes what the ledger knows to disk; RECEIPT_SERVER_LEDGER_SYNC=every-commit syncs repeat sightings and their audit entries too.",
            valueName: "location"))
    var ledger: String?

    @Option(
        name: .customLong("products"),
        help: ArgumentHelp(
            "Product kinds for the ledger: a JSON object of product id to consumable, non_consumable, auto_renewable or non_renewing [RECEIPT_SERVER_PRODUCTS].",
            valueName: "file"))
    var products: String?

    @Option(
        name: .customLong("on-conflict"),
        help: ArgumentHelp(
            "A verification naming another account than a purchase's owner: report it, or reject it as invalid (ledger.conflict) [RECEIPT_SERVER_ON_CONFLICT]. Default report.",
            valueName: "report|reject"))
    var onConflict: String?

    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "trace, debug, info, notice, warning, error or critical [RECEIPT_SERVER_LOG_LEVEL]. Default info.",
            valueName: "level"))
    var logLevel: String?

    func run() async throws {
        let env = ServeEnvironment()
        let logger = try bootstrapLogging(env)
        let anchors = try trustAnchors(env)
        let (policy, bundles, environments) = try policy(env)
        let configuration = try serverConfiguration(env)
        let verifier = ReceiptVerifier(
            configuration: .init(trustAnchors: anchors, validationTime: .receiptCreation, policy: policy))
        let (decider, remoteDescription) = try decider(verifier, env, logger: logger)
        let ledgerSettings = try ledgerSettings(env, bundles: bundles)
        let openedLedger = try await Self.openLedger(ledgerSettings, logger: logger)

        logger.info(
            "starting",
            metadata: [
                "configuration": "\(configuration)", "extra_roots": "\(anchors.additionalRoots.count)",
                "allow_xcode": "\(anchors.allowsXcodeStoreKitTesting)", "bundle_ids": "\(bundles)",
                "environments": "\(environments)", "remote_fallback": "\(remoteDescription)",
                "ledger": "\(ledgerSettings.location)", "products": "\(ledgerSettings.catalogue.kinds.count)",
                "on_conflict": "\(ledgerSettings.onConflict)",
            ])
        do {
            try await ReceiptService(
                configuration: configuration, decider: decider, ledger: openedLedger, logger: logger
            )
            .run()
        } catch {
            await openedLedger?.close()
            throw error
        }
        await openedLedger?.close()
        logger.info("stopped")
    }

    /// Standard error at `--log-level`, for every logger of the process.
    func bootstrapLogging(_ env: ServeEnvironment) throws -> Logger {
        let levelName = logLevel ?? env.text("RECEIPT_SERVER_LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(rawValue: levelName) else {
            throw ValidationError("--log-level takes trace, debug, info, notice, warning, error or critical")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "receipt-server")
    }

    /// Apple's pinned roots, Xcode's when allowed, and the operator's extra roots.
    func trustAnchors(_ env: ServeEnvironment) throws -> TrustAnchors {
        var anchors = TrustAnchors(allowsXcodeStoreKitTesting: allowXcode || env.flag("RECEIPT_SERVER_ALLOW_XCODE"))
        let paths =
            env.list(roots, "RECEIPT_SERVER_ROOT", separator: ":")
            + env.list(rootFolders, "RECEIPT_SERVER_ROOTS", separator: ":")
        for path in paths {
            do { try anchors.addRoots(fromPath: path) } catch {
                throw ValidationError("cannot load roots from \(path): \(error.reason)")
            }
        }
        return anchors
    }

    /// The operator's policy, with the bundle ids and environment names it was given (for the start-up log).
    func policy(_ env: ServeEnvironment) throws -> (ReceiptPolicy, bundles: [String], environments: [String]) {
        var policy = ReceiptPolicy()
        let bundles = env.list(bundleIDs, "RECEIPT_SERVER_BUNDLE_IDS")
        // An empty bundle id names no app: it would let a receipt without one pass as the operator's.
        guard !bundles.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
            throw ValidationError("--bundle-id [RECEIPT_SERVER_BUNDLE_IDS] takes an app's bundle id, not an empty one")
        }
        if !bundles.isEmpty { policy.acceptedBundleIDs = Set(bundles) }
        let environments = env.list(self.environment, "RECEIPT_SERVER_ENVIRONMENTS")
        if !environments.isEmpty {
            policy.acceptedEnvironments = Set(
                try environments.map { name in
                    guard let value = ReceiptEnvironment(rawValue: name) else {
                        throw ValidationError("--environment takes Production, Sandbox or Xcode, not \(name)")
                    }
                    return value
                })
        }
        let appIDs =
            appAppleIDs.isEmpty
            ? try env.list([], "RECEIPT_SERVER_APP_APPLE_IDS").map { text in
                guard let id = Int64(text) else { throw ValidationError("RECEIPT_SERVER_APP_APPLE_IDS takes numbers") }
                return id
            } : appAppleIDs
        if !appIDs.isEmpty { policy.acceptedAppAppleIDs = Set(appIDs) }
        if maximumJWSAge != nil || env.text("RECEIPT_SERVER_MAX_JWS_AGE") != nil {
            policy.maximumSignedAge = try env.seconds(
                maximumJWSAge, "--max-jws-age", "RECEIPT_SERVER_MAX_JWS_AGE", default: 0)
        }
        return (policy, bundles, environments)
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

    /// Where the ledger is and how it runs.
    struct LedgerSettings {
        var location: LedgerLocation
        var catalogue: ProductCatalogue
        var onConflict: ConflictPolicy
        var storeOptions: LedgerStoreOptions
    }

    /// The ledger's location, catalogue, conflict policy and store options. With the ledger on, the operator's apps
    /// must be named: a ledger credits what it records, and without them a receipt of anyone's app (one using the
    /// victim's product ids) would become an entitlement.
    func ledgerSettings(_ env: ServeEnvironment, bundles: [String]) throws -> LedgerSettings {
        let conflictName = onConflict ?? env.text("RECEIPT_SERVER_ON_CONFLICT") ?? "report"
        guard let conflictPolicy = ConflictPolicy(rawValue: conflictName) else {
            throw ValidationError("--on-conflict takes report or reject")
        }
        let location: LedgerLocation
        let catalogue: ProductCatalogue
        do throws(LedgerError) {
            if let text = ledger ?? env.text("RECEIPT_SERVER_LEDGER") {
                location = try LedgerLocation(parsing: text, password: env.text("RECEIPT_SERVER_LEDGER_PASSWORD"))
            } else {
                location = LedgerLocation.defaultLocation
            }
            if let path = products ?? env.text("RECEIPT_SERVER_PRODUCTS") {
                catalogue = try Self.catalogue(path)
            } else {
                catalogue = ProductCatalogue()
            }
        } catch {
            throw ValidationError(error.reason)
        }
        if location != .none, bundles.isEmpty {
            throw ValidationError(
                "the ledger is on (\(location)) and no app is configured: add --bundle-id <your app's bundle id> "
                    + "(repeatable) [RECEIPT_SERVER_BUNDLE_IDS], so that only your apps' purchases are recorded, "
                    + "or run without a ledger: --ledger none")
        }
        let syncEveryCommit: Bool
        switch env.text("RECEIPT_SERVER_LEDGER_SYNC") ?? "changes" {
        case "changes": syncEveryCommit = false
        case "every-commit": syncEveryCommit = true
        default: throw ValidationError("RECEIPT_SERVER_LEDGER_SYNC takes changes or every-commit")
        }
        let storeOptions = LedgerStoreOptions(
            busyTimeout: try env.seconds(
                nil, "RECEIPT_SERVER_LEDGER_BUSY_TIMEOUT", "RECEIPT_SERVER_LEDGER_BUSY_TIMEOUT", default: 5),
            deadline: try env.seconds(
                nil, "RECEIPT_SERVER_LEDGER_DEADLINE", "RECEIPT_SERVER_LEDGER_DEADLINE", default: 10),
            syncEveryCommit: syncEveryCommit)
        return LedgerSettings(
            location: location, catalogue: catalogue, onConflict: conflictPolicy, storeOptions: storeOptions)
    }

    /// Opens (creating and migrating) the ledger; `nil` for `--ledger none`. A store that cannot be opened is
    /// logged and exits 69 (`EX_UNAVAILABLE`).
    static func openLedger(_ settings: LedgerSettings, logger: Logger) async throws -> Ledger? {
        do throws(LedgerError) {
            let store = try await Ledger.openStore(settings.location, options: settings.storeOptions, logger: logger)
            let opened = store.map {
                Ledger(store: $0, catalogue: settings.catalogue, onConflict: settings.onConflict)
            }
            if let sqlite = store as? SQLiteLedgerStore, try await sqlite.holdsSubscriptionState() {
                opened?.noteSubscriptionState()
            }
            return opened
        } catch {
            logger.critical(
                "cannot open the ledger", metadata: ["ledger": "\(settings.location)", "error": "\(error)"])
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
    }

    /// The product catalogue at `path`.
    static func catalogue(_ path: String) throws(LedgerError) -> ProductCatalogue {
        // The size first: a catalogue is read whole, so a huge file (or a device) is refused unread.
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size <= ProductCatalogue.maximumSize,
            let data = FileManager.default.contents(atPath: path)
        else {
            throw LedgerError(
                .invalidCatalogue,
                "cannot read the product catalogue \(path) (a regular file of at most \(ProductCatalogue.maximumSize) bytes)"
            )
        }
        return try ProductCatalogue(json: Array(data))
    }

    /// `port` when it is a TCP port number (0 asks for a free one).
    static func validPort(_ port: Int) throws -> Int {
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port [RECEIPT_SERVER_PORT] takes 0 to 65535, not \(port)")
        }
        return port
    }
}
