import ArgumentParser
import Logging

/// The flags `sync` and `notifications backfill` share: serve's trust, ledger and App Store Server API flags, and
/// `--verbose`.
struct APICommandOptions: ParsableArguments {
    @Flag(help: "Log at info on standard error (standard output carries the answers).")
    var verbose = false

    @OptionGroup(title: "Trust and policy")
    var trust: TrustOptions

    @OptionGroup(title: "Ledger")
    var ledger: LedgerOptions

    @OptionGroup(title: "App Store Server API")
    var appStoreAPI: AppStoreAPIOptions

    /// The intake these flags describe, and its logger.
    func open(command: String) async throws -> (CommandIntake, Logger) {
        let logger = CommandIntake.logger(
            label: "receipt-server." + command.split(separator: " ").joined(separator: "."), verbose: verbose)
        let opened = try await CommandIntake.open(
            trust: trust, ledger: ledger, appStoreAPI: appStoreAPI, command: command, logger: logger)
        return (opened, logger)
    }
}
