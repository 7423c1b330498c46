import ArgumentParser
import Foundation
import Logging
import ReceiptLedger
import ReceiptLedgerStores

/// `receipt-server webhooks …`: reads the ledger's outgoing events and queues parked ones again, without serving.
@available(macOS 10.15, *)
struct WebhooksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "List the ledger's outgoing events, or queue failed ones again.",
        subcommands: [WebhooksListCommand.self, WebhooksReplayCommand.self])

    /// The store at `--ledger` (or `RECEIPT_SERVER_LEDGER`, or the default), opened for `command`.
    /// - Throws: `ValidationError` (64) for a bad location or `none`; `ExitCode(66)` when a SQLite ledger does not
    ///   exist; `ExitCode(69)` when the store cannot be opened.
    static func openStore(_ ledger: String?, readOnly: Bool, command: String) async throws -> any LedgerStore {
        let environment = ProcessInfo.processInfo.environment
        let password = environment["RECEIPT_SERVER_LEDGER_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        let location: LedgerLocation
        do throws(LedgerError) {
            location = try LedgerLocation(
                parsing: ledger ?? environment["RECEIPT_SERVER_LEDGER"].flatMap { $0.isEmpty ? nil : $0 }
                    ?? LedgerLocation.defaultLocation.description,
                password: password)
        } catch {
            throw ValidationError(error.reason)
        }
        if case .none = location { throw ValidationError("--ledger none keeps no events") }
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            FileHandle.standardError.write(Data("receipt-server webhooks \(command): no ledger at \(path)\n".utf8))
            throw ExitCode(66)  // EX_NOINPUT
        }
        var logger = Logger(label: "receipt-server.webhooks")
        logger.logLevel = .error
        let opened: (any LedgerStore)?
        do throws(LedgerError) {
            opened = try await Ledger.openStore(
                location, options: LedgerStoreOptions(readOnly: readOnly), logger: logger)
        } catch {
            FileHandle.standardError.write(Data("receipt-server webhooks \(command): \(error)\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
        guard let opened else { throw ValidationError("--ledger none keeps no events") }
        return opened
    }
}
