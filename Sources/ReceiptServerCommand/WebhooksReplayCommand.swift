import ArgumentParser
import Foundation
import ReceiptLedger
import ReceiptModel

/// `receipt-server webhooks replay`: queues events again for delivery, due now, their maximum age counted from now.
@available(macOS 10.15, *)
struct WebhooksReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Queue events again for delivery: the ones named, or every failed one.",
        discussion: """
            Prints how many were queued (`queued N`). A running server with a webhook URL delivers them. Exits 0, 64 \
            for bad arguments, 66 when a SQLite ledger does not exist, 69 when the ledger cannot be written.
            """)

    @Option(
        help: ArgumentHelp(
            "The ledger: sqlite:PATH or postgres://USER@HOST:PORT/DATABASE [RECEIPT_SERVER_LEDGER]. Default sqlite:receipt-ledger.sqlite.",
            valueName: "location"))
    var ledger: String?

    @Flag(help: "Every event parked as failed.")
    var failed = false

    @Argument(help: ArgumentHelp("Event ids (evt_…).", valueName: "id"))
    var ids: [String] = []

    func validate() throws {
        guard failed != !ids.isEmpty else {
            throw ValidationError("name event ids or --failed (one or the other)")
        }
    }

    func run() async throws {
        let store = try await WebhooksCommand.openStore(ledger, readOnly: false, command: "replay")
        do throws(LedgerError) {
            // The command line's one reading of the wall clock: "now" for the events queued again.
            let queued = try await store.requeueEvents(ids: failed ? nil : ids, now: ReceiptDate.systemNow())
            await store.close()
            print("queued \(queued)")
        } catch {
            await store.close()
            FileHandle.standardError.write(Data("receipt-server webhooks replay: \(error)\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
    }
}
