import Foundation
import TestSupport
import Testing

/// `receipt-server`'s webhook flags and `webhooks list|replay`: the secret comes only from the environment and never
/// shows in a message or the log; a configuration that cannot deliver is a usage error before anything is bound.
@Suite(
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: SharedTestData.executable("receipt-server").path),
        "receipt-server is not built: CLI checks skipped"),
    .timeLimit(.minutes(1)))
struct WebhookCommandTests {
    let command = CommandRunner("receipt-server")
    static let secret = "whsec_cli_never_printed"
    static let app = ["--bundle-id", "org.example.receiptforge.sample"]

    @Test func aWebhookURLWithoutASecretRefusesToStart() async throws {
        let folder = try TemporaryFolder()
        let ledger = ["--ledger", "sqlite:" + folder.url.appendingPathComponent("l.sqlite").path]
        let outcome = try await command.run(
            ReceiptServerCommandTests.unbindableHost + Self.app + ledger + ["--webhook-url", "https://hooks.example/r"])
        #expect(outcome.status == 64, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("RECEIPT_SERVER_WEBHOOK_SECRET"))
        // Refused before the ledger was opened.
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("l.sqlite").path))
    }

    @Test(arguments: [
        // The outbox lives in the ledger: no ledger, no webhook.
        ["--ledger", "none", "--webhook-url", "https://hooks.example/r"],
        ["--webhook-url", "ftp://hooks.example/r"],
        ["--webhook-url", "https://hooks.example/r", "--webhook-timeout", "30"],
        ["--webhook-url", "https://hooks.example/r", "--webhook-timeout", "0"],
        ["--webhook-url", "https://hooks.example/r", "--webhook-max-age", "-1"],
        ["--webhook-url", "https://hooks.example/r", "--webhook-max-age", "nan"],
        // A secret with nowhere to send.
        [],
    ])
    func unusableWebhookSettingsAreUsageErrorsThatNeverPrintTheSecret(arguments: [String]) async throws {
        let folder = try TemporaryFolder()
        let ledger =
            arguments.contains("--ledger")
            ? [] : ["--ledger", "sqlite:" + folder.url.appendingPathComponent("l.sqlite").path]
        let outcome = try await command.run(
            ReceiptServerCommandTests.unbindableHost + Self.app + ledger + arguments,
            environment: ["RECEIPT_SERVER_WEBHOOK_SECRET": Self.secret])
        #expect(outcome.status == 64, "\(arguments): \(outcome.standardError)")
        #expect(!outcome.standardError.isEmpty)
        #expect(!outcome.standardError.contains(Self.secret))
        #expect(!outcome.standardOutput.contains(Self.secret))
    }

    @Test func aServerWithAWebhookLogsItsOriginButNeverItsSecrets() async throws {
        let folder = try TemporaryFolder()
        let server = try await ReceiptServerProcess(
            Self.app + ["--ledger", "sqlite:w.sqlite", "--webhook-url", "http://127.0.0.1:9/hooks?token=tok_private"],
            environment: ["RECEIPT_SERVER_WEBHOOK_SECRET": Self.secret + "," + Self.secret + "_next"],
            in: folder.url, name: "webhooks")
        defer { server.kill() }
        #expect(server.log.contains("http://127.0.0.1:9"), "\(server.log)")
        #expect(server.log.contains("secrets 2"), "\(server.log)")
        #expect(!server.log.contains("whsec_"), "a secret was logged")
        #expect(!server.log.contains("tok_private"), "the URL's query was logged")
    }

    @Test(arguments: [
        ["webhooks", "replay", "--ledger", "sqlite:l.sqlite"],
        ["webhooks", "replay", "--ledger", "sqlite:l.sqlite", "--failed", "evt_0"],
        ["webhooks", "list", "--ledger", "sqlite:l.sqlite", "--since", "yesterday"],
        ["webhooks", "list", "--ledger", "none"],
    ])
    func badWebhooksCommandsAreUsageErrors(arguments: [String]) async throws {
        let folder = try TemporaryFolder()
        let outcome = try await command.run(arguments, in: folder.url)
        #expect(outcome.status == 64, "\(arguments): \(outcome.standardError)")
    }

    @Test(arguments: [["webhooks", "list"], ["webhooks", "replay", "--failed"]])
    func aMissingLedgerIsNoInput(arguments: [String]) async throws {
        let folder = try TemporaryFolder()
        let outcome = try await command.run(arguments + ["--ledger", "sqlite:absent.sqlite"], in: folder.url)
        #expect(outcome.status == 66, "\(arguments): \(outcome.standardError)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("absent.sqlite").path))
    }
}
