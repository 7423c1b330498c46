import ArgumentParser
import Foundation
import Logging
import ReceiptLedger
import ReceiptLedgerStores
import ReceiptModel
import ReceiptServer

/// `receipt-server ledger audit`: the audit trail as JSON lines, oldest first, read page by page.
@available(macOS 10.15, *)
struct LedgerAuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Print the ledger's audit entries as JSON lines.",
        discussion: """
            Each line has the keys sequence, time, endpoint, receipt_sha256, verdict, reason, decided_by, account, \
            new_transaction_ids and conflicts. Exits 0, 64 for a bad flag, 66 when a SQLite ledger does not \
            exist, 69 when the ledger cannot be read.
            """)

    @Option(
        help: ArgumentHelp(
            "The ledger: sqlite:PATH or postgres://USER@HOST:PORT/DATABASE [RECEIPT_SERVER_LEDGER]. Default sqlite:receipt-ledger.sqlite.",
            valueName: "location"))
    var ledger: String?

    @Option(help: ArgumentHelp("Only entries at or after this RFC 3339 instant.", valueName: "instant"))
    var since: String?

    @Option(help: ArgumentHelp("Only entries naming this account.", valueName: "id"))
    var account: String?

    @Option(help: ArgumentHelp("Only entries reporting this transaction new or in a conflict.", valueName: "id"))
    var transaction: String?

    /// Entries read per query.
    static let pageSize = 5_000

    func run() async throws {
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
        var query = AuditQuery(account: account, transactionID: transaction, limit: Self.pageSize)
        if let since {
            guard let instant = ReceiptDate(rfc3339: since) else {
                throw ValidationError("--since takes an RFC 3339 instant, e.g. 2026-11-24T00:00:00Z")
            }
            query.since = instant
        }
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            FileHandle.standardError.write(Data("receipt-server ledger audit: no ledger at \(path)\n".utf8))
            throw ExitCode(66)  // EX_NOINPUT
        }
        if case .none = location { throw ValidationError("--ledger none has no audit trail") }

        var logger = Logger(label: "receipt-server.ledger")
        logger.logLevel = .error
        do throws(LedgerError) {
            guard
                let store = try await Ledger.openStore(
                    location, options: LedgerStoreOptions(readOnly: true), logger: logger)
            else { return }
            var output = FileHandleOutput()
            while true {
                let page = try await store.auditEntries(query)
                for entry in page { output.write(LedgerJSON.line(entry)) }
                output.flush()
                guard page.count == Self.pageSize, let last = page.last else { break }
                query.afterSequence = last.sequence
            }
            await store.close()
        } catch {
            FileHandle.standardError.write(Data("receipt-server ledger audit: \(error)\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
    }
}

/// Standard output in 64 KiB writes.
struct FileHandleOutput {
    private var buffer: [UInt8] = []

    mutating func write(_ line: [UInt8]) {
        buffer += line
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }
}
