import Foundation
import TestSupport
import Testing

/// The `receipt-server` executable: its flags and environment variables are checked before anything is
/// bound, so a bad value is a usage error (exit 64) with a message, never a crash or a half-started server.
@Suite(
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: SharedTestData.executable("receipt-server").path),
        "receipt-server is not built: CLI checks skipped"),
    .timeLimit(.minutes(1)))
struct ReceiptServerCommandTests {
    let command = CommandRunner("receipt-server")

    /// Added to every invocation that should be refused: should a value wrongly pass, the server fails to bind
    /// this documentation address (RFC 5737; binding sends nothing) and exits at once instead of serving.
    static let unbindableHost = ["--host", "192.0.2.1"]

    @Test(arguments: [
        ["--body-timeout", "1e300"], ["--idle-timeout", "0"], ["--body-timeout", "nan"],
        ["--port", "70000"], ["--port", "-1"], ["--at", "yesterday"], ["--environment", "Staging"],
        ["--log-level", "loud"], ["--max-in-flight", "0"], ["--root", "/nonexistent/root.pem"],
        ["--ledger", "mysql://u@h/db"], ["--ledger", "postgres://h/db"], ["--on-conflict", "ignore"],
        ["--products", "/nonexistent/products.json"], ["--bundle-id", ""], ["--bundle-id", " "],
    ])
    func badFlagsAreUsageErrors(arguments: [String]) async throws {
        let outcome = try await command.run(Self.unbindableHost + arguments)
        #expect(outcome.status == 64, "\(arguments): \(outcome.standardError)")
        #expect(!outcome.standardError.isEmpty)
    }

    /// With the ledger on (the default) a server must be told the operator's apps, or another app's receipt using
    /// the victim's product ids would be credited: it refuses to start and says what to add. `--ledger none`, or a
    /// bundle id from the flag or `RECEIPT_SERVER_BUNDLE_IDS`, starts it, and the start-up log says how the backend's
    /// routes are protected.
    @Test func aLedgerWithoutTheOperatorsAppsRefusesToStart() async throws {
        let folder = try TemporaryFolder()
        for arguments in [[], ["--ledger", "sqlite:" + folder.url.appendingPathComponent("l.sqlite").path]] {
            let outcome = try await command.run(Self.unbindableHost + arguments)
            #expect(outcome.status == 64, "\(arguments)")
            #expect(outcome.standardError.contains("--bundle-id"), "\(outcome.standardError)")
            #expect(outcome.standardError.contains("--ledger none"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("l.sqlite").path))
        let unledgered = try await ReceiptServerProcess(["--ledger", "none"], in: folder.url, name: "none")
        defer { unledgered.kill() }
        let named = try await ReceiptServerProcess(
            [], environment: ["RECEIPT_SERVER_BUNDLE_IDS": "org.example.receiptforge.sample"], in: folder.url,
            name: "named")
        defer { named.kill() }
        #expect(named.log.contains("loopback callers only"), "\(named.log)")
        let tokened = try await ReceiptServerProcess(
            ["--bundle-id", "org.example.receiptforge.sample", "--ledger", "sqlite:t.sqlite"],
            environment: ["RECEIPT_SERVER_API_TOKENS": "secret-token-one, secret-token-two"], in: folder.url,
            name: "tokened")
        defer { tokened.kill() }
        #expect(tokened.log.contains("bearer token (2 configured)"), "\(tokened.log)")
        #expect(!tokened.log.contains("secret-token"), "a token was logged")
    }

    @Test func badEnvironmentVariablesAreUsageErrors() async throws {
        for (name, value) in [
            ("RECEIPT_SERVER_REMOTE_DEADLINE", "1e300"), ("RECEIPT_SERVER_PORT", "http"),
            ("RECEIPT_SERVER_BODY_TIMEOUT", "-5"),
        ] {
            let outcome = try await command.run(Self.unbindableHost + ["--remote-fallback"], environment: [name: value])
            #expect(outcome.status == 64, "\(name)=\(value): \(outcome.standardError)")
        }
    }

    @Test func helpNamesEveryEnvironmentVariable() async throws {
        let outcome = try await command.run(["serve", "--help"])
        #expect(outcome.status == 0)
        for name in [
            "RECEIPT_SERVER_HOST", "RECEIPT_SERVER_PORT", "RECEIPT_SERVER_ROOT", "RECEIPT_SERVER_AT",
            "RECEIPT_SERVER_REMOTE_FALLBACK", "RECEIPT_SERVER_SHARED_SECRET", "RECEIPT_SERVER_MAX_BODY_SIZE",
            "RECEIPT_SERVER_LEDGER", "RECEIPT_SERVER_LEDGER_PASSWORD", "RECEIPT_SERVER_PRODUCTS",
            "RECEIPT_SERVER_ON_CONFLICT", "RECEIPT_SERVER_API_TOKENS", "RECEIPT_SERVER_BUNDLE_IDS",
        ] {
            #expect(outcome.standardOutput.contains(name), "\(name)")
        }
        let root = try await command.run(["--help"])
        #expect(root.status == 0)
        #expect(root.standardOutput.contains("serve") && root.standardOutput.contains("ledger"))
    }

    /// The audit command never creates a ledger: a missing SQLite file is "no input" (66); bad flags are 64.
    @Test func theAuditCommandRefusesWhatItCannotRead() async throws {
        let folder = try TemporaryFolder()
        let missing = folder.url.appendingPathComponent("absent.sqlite").path
        let absent = try await command.run(["ledger", "audit", "--ledger", "sqlite:\(missing)"])
        #expect(absent.status == 66, "\(absent.standardError)")
        #expect(!FileManager.default.fileExists(atPath: missing))
        for arguments in [["--since", "yesterday"], ["--ledger", "none"], ["--ledger", "ftp://x"]] {
            let outcome = try await command.run(["ledger", "audit"] + arguments)
            #expect(outcome.status == 64, "\(arguments): \(outcome.standardError)")
        }
    }
}
