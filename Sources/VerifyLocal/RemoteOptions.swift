import ArgumentParser
import Logging
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The remote-fallback flags of `verify-local`: Apple's verifyReceipt (or a stand-in) for receipts the
/// local check cannot decide.
struct RemoteOptions: ParsableArguments {
    @Flag(help: "Ask Apple's verifyReceipt when the local verdict is inconclusive (off by default).")
    var remote = false

    @Option(
        name: .customLong("remote-url"),
        help: ArgumentHelp("The production verifyReceipt URL (implies --remote).", valueName: "url"))
    var productionURL: String?

    @Option(
        name: .customLong("remote-sandbox-url"),
        help: ArgumentHelp("The sandbox verifyReceipt URL (implies --remote).", valueName: "url"))
    var sandboxURL: String?

    @Option(
        help: ArgumentHelp(
            "The app's shared secret, sent to Apple as password; default: $RECEIPT_SHARED_SECRET. Never printed.",
            valueName: "secret"))
    var password: String?

    @Option(
        name: .customLong("remote-timeout"),
        help: ArgumentHelp("Seconds one verifyReceipt attempt may take.", valueName: "seconds"))
    var attemptTimeout: Double = Self.defaultAttemptTimeout

    @Option(
        name: .customLong("remote-deadline"),
        help: ArgumentHelp("Seconds a whole remote call may take, retries included.", valueName: "seconds"))
    var deadline: Double = Self.defaultDeadline

    @Flag(
        help: "With a shared secret: ask Apple about subscriptions whose newest expiry in the receipt is already past.")
    var currentSubscription = false

    /// `--remote-timeout`'s default, in seconds.
    static let defaultAttemptTimeout: Double = 10
    /// `--remote-deadline`'s default, in seconds.
    static let defaultDeadline: Double = 30

    /// The environment variable read when --password is absent.
    static let sharedSecretVariable = "RECEIPT_SHARED_SECRET"

    var isEnabled: Bool { remote || productionURL != nil || sandboxURL != nil }

    func validate() throws {
        _ = try Self.duration(attemptTimeout, flag: "--remote-timeout")
        _ = try Self.duration(deadline, flag: "--remote-deadline")
    }

    /// `seconds` as a duration, or a usage error naming `flag`.
    static func duration(_ seconds: Double, flag: String) throws -> Duration {
        guard let duration = Duration(configuredSeconds: seconds) else {
            throw ValidationError(
                "\(flag) takes a positive number of seconds, at most \(Int(Duration.longestConfiguredSeconds))")
        }
        return duration
    }

    /// The shared secret from --password or the environment; never shown.
    var sharedSecret: String? {
        if let password, !password.isEmpty { return password }
        let value = ProcessInfo.processInfo.environment[Self.sharedSecretVariable]
        return value?.isEmpty == false ? value : nil
    }

    /// The fallback verifier, or `nil` when remote is off.
    func makeFallbackVerifier(verifier: ReceiptVerifier) throws -> FallbackVerifier? {
        guard isEnabled else { return nil }
        var configuration = VerifyReceiptClient.Configuration(
            attemptTimeout: try Self.duration(attemptTimeout, flag: "--remote-timeout"),
            deadline: try Self.duration(deadline, flag: "--remote-deadline"))
        if let productionURL { configuration.productionURL = productionURL }
        if let sandboxURL { configuration.sandboxURL = sandboxURL }
        var logger = Logger(label: "verify-local.remote")
        logger.logLevel = .error
        do {
            let client = try VerifyReceiptClient(configuration: configuration, logger: logger)
            return FallbackVerifier(verifier: verifier, remote: client, logger: logger)
        } catch {
            throw ValidationError("\(error.reason)")
        }
    }

    /// Makes the per-receipt request, from any task; "now" is read there, in the command, for
    /// --current-subscription.
    func requestMaker(now: @escaping @Sendable () -> ReceiptDate) -> @Sendable () -> FallbackRequest {
        let password = sharedSecret
        let asksCurrentState = currentSubscription
        return { FallbackRequest(password: password, subscriptionStateAt: asksCurrentState ? now() : nil) }
    }
}
