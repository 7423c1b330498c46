import Foundation
import TestSupport
import Testing

/// Events through a real `receipt-server` and a SQLite ledger: a verification records its events, a receiver that
/// refuses every connection leaves them to be parked after `--webhook-max-age`, `webhooks list` shows them and
/// `webhooks replay` queues them again.
@Suite(
    .enabled(
        if: ["receipt-server", "mint-receipt"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: SharedTestData.executable($0).path)
        }, "receipt-server or mint-receipt is not built: webhook process tests skipped"),
    .timeLimit(.minutes(2)))
struct WebhookProcessTests {
    let command = CommandRunner("receipt-server")

    @Test func eventsAnUnreachableReceiverNeverGotAreParkedListedAndReplayed() async throws {
        let folder = try TemporaryFolder()
        let receipts = try ReceiptCorpus.mint([[.consumable("6200000000000001")]], in: folder.url)
        let receipt = try #require(receipts.first)
        let ledger = "sqlite:" + folder.url.appendingPathComponent("w.sqlite").path
        // Port 9 on loopback (discard): nothing listens, every attempt is refused.
        let server = try await ReceiptServerProcess(
            [
                "--ledger", ledger, "--root", LedgerProcessTests.testRoot, "--bundle-id", LedgerProcessTests.bundleID,
                "--webhook-url", "http://127.0.0.1:9/hooks", "--webhook-timeout", "1", "--webhook-max-age", "1",
            ],
            environment: ["RECEIPT_SERVER_WEBHOOK_SECRET": "whsec_process_test"], in: folder.url, name: "hooks")
        defer { server.kill() }

        let answer = try await LedgerProcessTests.verify(
            receipt, account: "acct-hooks", port: server.port, LoopbackHTTPClient())
        #expect(answer.status == 200 && answer.newIDs == ["6200000000000001"])

        // Refused, retried, then older than a second: parked. Polled, not timed.
        var parked: [[String: Any]] = []
        for _ in 0..<600 {
            parked = try command.run(["webhooks", "list", "--ledger", ledger, "--failed"]).jsonLines()
            if !parked.isEmpty { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        server.kill()
        let first = try #require(parked.first, "no event was parked: \(server.log)")
        #expect(parked.contains { $0["type"] as? String == "purchase.new" })
        #expect(Set(first.keys) == ["id", "type", "key", "created_at", "attempts", "state", "last_error"])
        #expect(first["state"] as? String == "failed")
        #expect((first["attempts"] as? Int ?? 0) >= 1)
        #expect(first["last_error"] is String)
        #expect(first["key"] as? String == "account:acct-hooks")
        #expect(!server.log.contains("whsec_process_test"), "the secret was logged")

        // Everything, and --since in the future lists nothing.
        let all = try command.run(["webhooks", "list", "--ledger", ledger])
        #expect(all.status == 0)
        #expect(try all.jsonLines().count >= parked.count)
        let none = try command.run(["webhooks", "list", "--ledger", ledger, "--since", "9999-01-01T00:00:00Z"])
        #expect(try none.jsonLines().isEmpty)

        // One by id, then the rest.
        let id = try #require(first["id"] as? String)
        let one = try command.run(["webhooks", "replay", "--ledger", ledger, id])
        #expect(one.status == 0, "\(one.standardError)")
        #expect(one.standardOutput == "queued 1\n")
        let rest = try command.run(["webhooks", "replay", "--ledger", ledger, "--failed"])
        #expect(rest.standardOutput == "queued \(parked.count - 1)\n")
        let afterwards = try command.run(["webhooks", "list", "--ledger", ledger, "--failed"])
        #expect(try afterwards.jsonLines().isEmpty)
        let requeued = try command.run(["webhooks", "list", "--ledger", ledger]).jsonLines()
        #expect(requeued.first { $0["id"] as? String == id }?["state"] as? String == "pending")
    }
}
