import ArgumentParser
import Logging
import ReceiptIntake
import ReceiptLedger
import ReceiptRemote
import ReceiptVerification

/// What `sync` and `notifications backfill` run on: the serve command's verifier, ledger and App Store Server API,
/// built from the same flags (``APICommandOptions``), in an intake without a server around it.
struct CommandIntake {
    let intake: ReceiptIntake
    let ledger: Ledger
    let bundleIDs: [String]

    /// Builds it; the ledger and the API are both required.
    /// - Throws: `ValidationError` (exit 64) for a missing or unusable flag, `ExitCode(69)` for a ledger that cannot
    ///   be opened.
    static func open(
        trust: TrustOptions, ledger options: LedgerOptions, appStoreAPI: AppStoreAPIOptions, command: String,
        logger: Logger
    ) async throws -> CommandIntake {
        let env = ServeEnvironment()
        let (verifier, bundles, _) = try trust.verifier(env)
        let rules = IntakeRules(sharedSecret: env.text("RECEIPT_SERVER_SHARED_SECRET"))
        guard
            let api = try appStoreAPI.client(
                verifier: verifier, notificationPolicy: rules.notifications, env, logger: logger)
        else {
            throw ValidationError(
                "\(command) asks the App Store Server API: add --app-store-key, --app-store-key-id and --app-store-issuer"
            )
        }
        let settings = try options.ledgerSettings(env, bundles: bundles)
        guard let ledger = try await LedgerOptions.openLedger(settings, logger: logger) else {
            throw ValidationError("\(command) records through the ledger: --ledger none leaves nothing to record in")
        }
        let intake = ReceiptIntake(
            decider: FallbackVerifier(verifier: verifier), ledger: ledger, rules: rules, maximumInFlight: 64,
            serverAPI: api)
        return CommandIntake(intake: intake, ledger: ledger, bundleIDs: bundles)
    }

    /// A logger on standard error at `warning`, or at `info` with `verbose`: standard output carries the answers.
    static func logger(label: String, verbose: Bool) -> Logger {
        var logger = Logger(label: label) { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = verbose ? .info : .warning
        return logger
    }
}
