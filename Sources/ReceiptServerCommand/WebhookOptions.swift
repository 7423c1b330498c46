import ArgumentParser
import ReceiptLedger
import ReceiptWebhooks

/// The webhook flags of `serve`: where the ledger's events go (`--webhook-url`), how long an attempt may take and how
/// long an event is retried. The signing secret comes only from `RECEIPT_SERVER_WEBHOOK_SECRET` (comma-separated
/// during a rotation) and is never printed: not in a message, not in the start-up log.
struct WebhookOptions: ParsableArguments {
    @Option(
        name: .customLong("webhook-url"),
        help: ArgumentHelp(
            "POST the ledger's events (purchases, entitlement changes, refunds, conflicts), signed, to this http(s) URL [RECEIPT_SERVER_WEBHOOK_URL]. The secret comes only from RECEIPT_SERVER_WEBHOOK_SECRET (comma-separated during a rotation). Needs a ledger.",
            valueName: "url"))
    var url: String?

    @Option(
        name: .customLong("webhook-timeout"),
        help: ArgumentHelp(
            "Seconds one delivery attempt may take, at most 25 [RECEIPT_SERVER_WEBHOOK_TIMEOUT]. Default 10.",
            valueName: "seconds"))
    var timeout: Double?

    @Option(
        name: .customLong("webhook-max-age"),
        help: ArgumentHelp(
            "Seconds an event is retried before it is parked as failed (`receipt-server webhooks replay` queues it again) [RECEIPT_SERVER_WEBHOOK_MAX_AGE]. Default 86400.",
            valueName: "seconds"))
    var maxAge: Double?

    /// The longest maximum age: thirty days.
    static let longestMaxAge: Double = 30 * 86_400

    /// The webhook's configuration, or `nil` when no URL is configured.
    /// - Throws: `ValidationError` (exit 64) for a URL without a secret, a URL with `--ledger none`, a URL that is
    ///   not http(s), or a timeout or age out of range. No message carries the secret.
    func configuration(_ env: ServeEnvironment, ledger: LedgerLocation) throws -> WebhookConfiguration? {
        let secretText = env.text("RECEIPT_SERVER_WEBHOOK_SECRET")
        guard let url = url ?? env.text("RECEIPT_SERVER_WEBHOOK_URL") else {
            if secretText != nil {
                throw ValidationError(
                    "RECEIPT_SERVER_WEBHOOK_SECRET is set but no --webhook-url [RECEIPT_SERVER_WEBHOOK_URL] is")
            }
            return nil
        }
        if case .none = ledger {
            throw ValidationError(
                "--webhook-url delivers the ledger's events, and the ledger is off (--ledger none): turn the ledger on "
                    + "or drop the webhook")
        }
        let secrets = (secretText ?? "").split(separator: ",").map { String($0).trimmingWhitespace() }
            .filter { !$0.isEmpty }
        guard !secrets.isEmpty else {
            throw ValidationError(
                "--webhook-url needs a signing secret in RECEIPT_SERVER_WEBHOOK_SECRET (comma-separated during a "
                    + "rotation); it is never taken from a flag")
        }
        let timeout = try env.number(timeout, "RECEIPT_SERVER_WEBHOOK_TIMEOUT", default: 10)
        guard timeout.isFinite, timeout > 0, timeout <= 25 else {
            throw ValidationError(
                "--webhook-timeout [RECEIPT_SERVER_WEBHOOK_TIMEOUT] takes more than 0 and at most 25 seconds")
        }
        let maxAge = try env.number(maxAge, "RECEIPT_SERVER_WEBHOOK_MAX_AGE", default: 86_400)
        guard maxAge.isFinite, maxAge > 0, maxAge <= Self.longestMaxAge else {
            throw ValidationError(
                "--webhook-max-age [RECEIPT_SERVER_WEBHOOK_MAX_AGE] takes a positive number of seconds, at most "
                    + "\(Int(Self.longestMaxAge))")
        }
        do throws(WebhookError) {
            return try WebhookConfiguration(
                url: url, secrets: secrets, timeout: .milliseconds(Int64(timeout * 1000)),
                maxAge: .milliseconds(Int64(maxAge * 1000))
            ).validated()
        } catch {
            // The reasons name the URL's shape or a setting, never a secret.
            throw ValidationError("--webhook-url [RECEIPT_SERVER_WEBHOOK_URL]: \(error.reason)")
        }
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
