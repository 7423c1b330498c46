import ArgumentParser
import Foundation
import ReceiptLedger
import ReceiptModel
import ReceiptServer

/// `receipt-server webhooks list`: the ledger's outgoing events as JSON lines, in commit order; never their bodies.
@available(macOS 10.15, *)
struct WebhooksListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print the ledger's outgoing events as JSON lines.",
        discussion: """
            Each line has the keys id, type, key, created_at, attempts, state (pending, delivered or failed) and \
            last_error. Exits 0, 64 for a bad flag, 66 when a SQLite ledger does not exist, 69 when the ledger cannot \
            be read.
            """)

    @Option(
        help: ArgumentHelp(
            "The ledger: sqlite:PATH or postgres://USER@HOST:PORT/DATABASE [RECEIPT_SERVER_LEDGER]. Default sqlite:receipt-ledger.sqlite.",
            valueName: "location"))
    var ledger: String?

    @Flag(help: "Only events parked as failed (older than the maximum age and still undelivered).")
    var failed = false

    @Option(help: ArgumentHelp("Only events created at or after this RFC 3339 instant.", valueName: "instant"))
    var since: String?

    func run() async throws {
        var query = LedgerEventQuery(onlyFailed: failed)
        if let since {
            guard let instant = ReceiptDate(rfc3339: since) else {
                throw ValidationError("--since takes an RFC 3339 instant, e.g. 2026-11-24T00:00:00Z")
            }
            query.since = instant
        }
        let store = try await WebhooksCommand.openStore(ledger, readOnly: true, command: "list")
        do throws(LedgerError) {
            let events = try await store.events(query)
            var output = FileHandleOutput()
            for event in events { output.write(LedgerJSON.line(event)) }
            output.flush()
            await store.close()
        } catch {
            await store.close()
            FileHandle.standardError.write(Data("receipt-server webhooks list: \(error)\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
    }
}
