import Foundation
import TestSupport
import Testing

/// `receipt-server sync`, `receipt-server notifications backfill` and `serve`'s start-up backfill as built
/// executables against a running `apple-standin` serving its demo App Store Server API dataset (45 renewals of one
/// customer and 45 notifications about them per environment, every JWS under the test JWS PKI, the API key
/// checked), each test on a SQLite ledger of its own; and the API flags' usage errors, which never print the key.
@Suite(
    .enabled(
        if: ["receipt-server", "apple-standin"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: SharedTestData.executable($0).path)
        }, "receipt-server or apple-standin is not built: Server API command tests skipped"),
    .timeLimit(.minutes(3)))
struct ServerAPICommandTests {
    let command = CommandRunner("receipt-server")

    static let certs = SharedTestData.packageRoot.appendingPathComponent("certs")
    static let keyFile = certs.appendingPathComponent("test-only-keys/test-app-store-api.key.pem").path
    static let bundleID = "com.example.standin"
    /// `apple-standin`'s default `--api-app-apple-id`, written in its Production answers.
    static let appAppleID = "1234567890"
    static let keyID = "KEYISSUE26"
    static let issuer = "issuer-of-issue-26"
    /// Transactions and notifications of the demo customer, per environment.
    static let demoCount = 45
    static let sandboxIDs = (0..<demoCount).map { String(1_000_000_000_000_001 + $0) }

    /// Every base64 line of the key file: none may appear in anything a command prints.
    static let keyBodyLines: [String] = {
        let text = (try? String(contentsOfFile: keyFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") && !$0.isEmpty }
    }()

    /// The stand-in with the demo dataset, refusing tokens not signed by the test key with `keyID` and `issuer`.
    static func standIn(_ extra: [String] = []) async throws -> StandInProcess {
        try await StandInProcess(
            [
                "--api-transactions", String(demoCount), "--api-notifications", String(demoCount),
                "--api-key", keyFile, "--api-key-id", keyID, "--api-issuer", issuer, "--api-bundle-id", bundleID,
                "--certs", certs.path,
            ] + extra)
    }

    /// Trust, ledger and API flags pointing at `standIn` and a SQLite ledger in `folder`.
    static func flags(_ standIn: StandInProcess, ledger folder: TemporaryFolder) -> [String] {
        [
            "--root", certs.appendingPathComponent("test-jws-root.pem").path, "--bundle-id", bundleID,
            "--app-apple-id", appAppleID, "--ledger",
            "sqlite:" + folder.url.appendingPathComponent("ledger.sqlite").path,
            "--app-store-key", keyFile, "--app-store-key-id", keyID, "--app-store-issuer", issuer,
            "--app-store-api-production-url", standIn.productionAPIURL,
            "--app-store-api-sandbox-url", standIn.sandboxAPIURL,
        ]
    }

    /// The one JSON object `outcome` printed.
    static func onlyLine(_ outcome: CommandRunner.Outcome) throws -> [String: Any] {
        let lines = try outcome.jsonLines()
        #expect(lines.count == 1, "\(outcome.standardOutput)")
        return try #require(lines.first, "no JSON line; stderr: \(outcome.standardError)")
    }

    // MARK: - sync

    @Test func syncByTransactionIDRecordsTheWholeSandboxHistoryThenKnowsIt() async throws {
        let standIn = try await Self.standIn()
        let folder = try TemporaryFolder()
        let arguments = ["sync", "--transaction-id", Self.sandboxIDs[0]] + Self.flags(standIn, ledger: folder)

        let first = try await command.run(arguments)
        #expect(first.status == 0, "\(first.standardError)")
        let answer = try Self.onlyLine(first)
        #expect(answer["synced"] as? Int == Self.demoCount)
        #expect(answer["environment"] as? String == "Sandbox")
        #expect(answer["bundle_id"] as? String == Self.bundleID)
        #expect(answer["transaction_id"] as? String == Self.sandboxIDs[0])
        #expect((answer["new_transaction_ids"] as? [String]).map(Set.init) == Set(Self.sandboxIDs))
        #expect((answer["new_transaction_ids"] as? [String])?.count == Self.demoCount, "an id reported new twice")
        #expect((answer["known_transaction_ids"] as? [String]) == [])
        #expect((answer["failed"] as? [Any])?.isEmpty == true, "\(answer)")

        let again = try await command.run(arguments)
        #expect(again.status == 0, "\(again.standardError)")
        let repeated = try Self.onlyLine(again)
        #expect(repeated["synced"] as? Int == Self.demoCount)
        #expect((repeated["new_transaction_ids"] as? [String]) == [])
        #expect((repeated["known_transaction_ids"] as? [String]).map(Set.init) == Set(Self.sandboxIDs))
        withExtendedLifetime((standIn, folder)) {}
    }

    /// A receipt that does not verify is refused before Apple is asked: the first scripted step of each API
    /// listener (a 500 with error code 5000001) is still there for the test's own request afterwards, so
    /// receipt-server sent none. (The stand-in checks no key here, so that the test's request needs no token.)
    @Test(arguments: ["tampered-payload", "random-bytes"])
    func syncRefusesAnInvalidReceiptWithoutAskingApple(receipt: String) async throws {
        let standIn = try await StandInProcess([
            "--api-transactions", String(Self.demoCount), "--api-bundle-id", Self.bundleID, "--certs",
            Self.certs.path, "--production-api-script", "error:500:5000001", "--sandbox-api-script",
            "error:500:5000001",
        ])
        let folder = try TemporaryFolder()
        let file: String
        if receipt == "random-bytes" {
            var generator = SplitMix64(seed: 26)
            file = try folder.write(
                "random.receipt", (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
            ).path
        } else {
            file = SharedTestData.packageRoot.appendingPathComponent("fixtures/\(receipt).receipt").path
        }
        let outcome = try await command.run(
            ["sync", file, "--root", Self.certs.appendingPathComponent("test-root.pem").path]
                + Self.flags(standIn, ledger: folder))
        #expect(outcome.status == 65, "\(outcome.standardError)")
        #expect(outcome.standardOutput.isEmpty)
        #expect(outcome.standardError.contains("sync.receipt_not_verified"), "\(outcome.standardError)")

        let client = LoopbackHTTPClient()
        for (baseURL, id) in [
            (standIn.productionAPIURL, "2000000000000001"), (standIn.sandboxAPIURL, Self.sandboxIDs[0]),
        ] {
            let answer = try await client.get(
                port: try StandInAPICommandTests.port(baseURL), "/inApps/v1/transactions/\(id)")
            #expect(answer.status == 500, "\(baseURL): a request took the scripted step before the test's")
            #expect(try answer.json()["errorCode"] as? Int == 5_000_001)
        }
        withExtendedLifetime(folder) {}
    }

    // MARK: - notifications backfill

    @Test func backfillAppliesEverySandboxNotificationOnceThenOnlyDuplicates() async throws {
        let standIn = try await Self.standIn()
        let folder = try TemporaryFolder()
        let since = Date(timeIntervalSinceNow: -2 * 24 * 3600).formatted(.iso8601)
        let arguments =
            ["notifications", "backfill", "--since", since, "--history-environment", "Sandbox"]
            + Self.flags(standIn, ledger: folder)

        let first = try await command.run(arguments)
        #expect(first.status == 0, "\(first.standardError)")
        let report = try Self.onlyLine(first)
        #expect(report["bundle_id"] as? String == Self.bundleID)
        #expect(report["environment"] as? String == "Sandbox")
        #expect(report["seen"] as? Int == Self.demoCount)
        let applied = try #require(report["applied"] as? [String])
        #expect(applied.count == Self.demoCount)
        #expect(Set(applied).count == Self.demoCount)
        #expect(report["duplicates"] as? Int == 0)
        #expect((report["failed"] as? [Any])?.isEmpty == true, "\(report)")

        let again = try await command.run(arguments)
        #expect(again.status == 0, "\(again.standardError)")
        let repeated = try Self.onlyLine(again)
        #expect((repeated["applied"] as? [String]) == [])
        #expect(repeated["duplicates"] as? Int == Self.demoCount)
        #expect((repeated["failed"] as? [Any])?.isEmpty == true)
        withExtendedLifetime((standIn, folder)) {}
    }

    // MARK: - serve

    @Test func serveBackfillsAtStartAndCountsItInMetrics() async throws {
        let standIn = try await Self.standIn()
        let folder = try TemporaryFolder()
        let server = try await ReceiptServerProcess(Self.flags(standIn, ledger: folder), in: folder.url)
        defer { server.kill() }

        // The backfill runs beside the routes: wait for its two log lines (Production, then Sandbox).
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(90)
        var lines: [Substring] = []
        while lines.count < 2 && clock.now < deadline {
            lines = server.log.split(separator: "\n").filter {
                $0.contains("notifications backfilled") || $0.contains("notification backfill failed")
            }
            try await Task.sleep(for: .milliseconds(50))  // polling the log, not waiting for an outcome
        }
        let sandbox = try #require(lines.first { $0.contains("environment=Sandbox") }, "\(server.log)")
        #expect(sandbox.contains("notifications backfilled"), "\(sandbox)")
        #expect(sandbox.contains(" info "), "\(sandbox)")
        #expect(sandbox.contains("applied=\(Self.demoCount)"), "\(sandbox)")
        let production = try #require(lines.first { $0.contains("environment=Production") }, "\(server.log)")
        #expect(production.contains("applied=\(Self.demoCount)"), "\(production)")

        let metrics = try await LoopbackHTTPClient().get(port: server.port, "/metrics")
        #expect(metrics.status == 200)
        let text = String(decoding: metrics.body, as: UTF8.self)
        let series = text.split(separator: "\n").filter {
            $0.hasPrefix("receipt_server_backfilled_notifications_total{")
        }
        let applied = series.filter { $0.contains(#"environment="Sandbox""#) && $0.contains(#"outcome="applied""#) }
        #expect(applied.count == 1, "\(series)")
        #expect(applied.first?.split(separator: " ").last == "\(Self.demoCount)", "\(series)")
        #expect(!server.log.contains(Self.keyBodyLines.first ?? "-"))
        withExtendedLifetime((standIn, folder)) {}
    }

    // MARK: - Usage errors

    /// What each refused invocation must name, by case.
    static let usageCases: [(name: String, arguments: [String], names: [String])] = [
        ("serve, only the key", ["serve", "--app-store-key", keyFile], ["--app-store-key-id", "--app-store-issuer"]),
        (
            "sync, only the key", ["sync", "--transaction-id", "1000000000000001", "--app-store-key", keyFile],
            ["--app-store-key-id", "--app-store-issuer"]
        ),
        (
            "backfill, only the key", ["notifications", "backfill", "--app-store-key", keyFile],
            ["--app-store-key-id", "--app-store-issuer"]
        ),
        (
            "sync, ids without a key",
            ["sync", "--transaction-id", "1", "--app-store-key-id", keyID, "--app-store-issuer", issuer],
            ["--app-store-key "]
        ),
        ("sync, no API flags", ["sync", "--transaction-id", "1000000000000001"], ["--app-store-key", "sync"]),
        ("backfill, no API flags", ["notifications", "backfill"], ["--app-store-key", "notifications backfill"]),
        (
            "sync, id and file", ["sync", "--transaction-id", "1000000000000001", "customer.receipt"],
            ["--transaction-id", "receipt file"]
        ),
        ("sync, neither id nor file", ["sync"], ["--transaction-id", "receipt file"]),
    ]

    @Test(arguments: usageCases.indices)
    func incompleteAPIFlagsAreUsageErrorsNamingWhatIsMissing(index: Int) async throws {
        let (name, arguments, names) = Self.usageCases[index]
        let folder = try TemporaryFolder()
        // Should serve wrongly start, it fails to bind this documentation address (RFC 5737) and exits.
        let host = arguments.first == "serve" ? ["--host", "192.0.2.1"] : []
        let outcome = try await command.run(
            arguments + host + [
                "--bundle-id", Self.bundleID, "--ledger",
                "sqlite:" + folder.url.appendingPathComponent("ledger.sqlite").path,
            ])
        #expect(outcome.status == 64, "\(name): \(outcome.standardError)")
        let error = Self.errorLine(outcome)
        for flag in names {
            #expect(error.contains(flag), "\(name): \(error)")
        }
        Self.expectNoKeyText(outcome, name)
    }

    /// A key file holding something else (a certificate; the key's PEM cut short, which keeps its first body
    /// line) is a usage error naming the key id, and its text is not printed.
    @Test(arguments: ["certificate", "cut-short"])
    func aKeyFileThatIsNotAKeyIsAUsageError(kind: String) async throws {
        let folder = try TemporaryFolder()
        let file: URL
        if kind == "certificate" {
            file = Self.certs.appendingPathComponent("test-jws-root.pem")
        } else {
            let text = "-----BEGIN PRIVATE KEY-----\n\(Self.keyBodyLines[0])\nAAAA\n-----END PRIVATE KEY-----\n"
            file = try folder.write("cut.p8", Data(text.utf8))
        }
        for subcommand in [["sync", "--transaction-id", "1000000000000001"], ["serve", "--host", "192.0.2.1"]] {
            let outcome = try await command.run(
                subcommand + [
                    "--bundle-id", Self.bundleID, "--ledger",
                    "sqlite:" + folder.url.appendingPathComponent("ledger.sqlite").path, "--app-store-key", file.path,
                    "--app-store-key-id", Self.keyID, "--app-store-issuer", Self.issuer,
                ])
            #expect(outcome.status == 64, "\(subcommand[0]) \(kind): \(outcome.standardError)")
            let error = Self.errorLine(outcome)
            #expect(error.contains("PKCS#8") && error.contains(Self.keyID), "\(error)")
            Self.expectNoKeyText(outcome, "\(subcommand[0]) \(kind)")
            if kind == "certificate" {
                let certificate = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")[1]
                #expect(!(outcome.standardOutput + outcome.standardError).contains(certificate))
            }
        }
    }

    /// ArgumentParser's `Error: …` line (the usage text after it lists every flag, so it cannot be what names one).
    static func errorLine(_ outcome: CommandRunner.Outcome) -> String {
        outcome.standardError.split(separator: "\n").first { $0.hasPrefix("Error:") }.map(String.init) ?? ""
    }

    static func expectNoKeyText(_ outcome: CommandRunner.Outcome, _ name: String) {
        #expect(!keyBodyLines.isEmpty)
        for line in keyBodyLines {
            #expect(!outcome.standardOutput.contains(line), "\(name): the key's text on stdout")
            #expect(!outcome.standardError.contains(line), "\(name): the key's text on stderr")
        }
    }
}
