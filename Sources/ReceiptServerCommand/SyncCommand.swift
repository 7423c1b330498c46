import ArgumentParser
import Foundation
import ReceiptIntake
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptServer

/// `receipt-server sync`: `POST /v1/sync` from the command line. Prints the answer's JSON on one line.
@available(macOS 10.15, *)
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Record a customer's whole transaction history from the App Store Server API.",
        discussion: """
            From a receipt file (raw or base64), verified locally first: an invalid one is refused (exit 65) and \
            Apple is not asked. Or from --transaction-id, looked up as given. Every signed transaction is verified \
            and recorded through the ledger; the answer (one JSON line) lists the new and known ids and every item \
            that did not verify, with its reason. Takes serve's trust, ledger and App Store Server API flags.
            """)

    @Option(name: .customLong("transaction-id"), help: "Look up this transaction id instead of a receipt's.")
    var transactionID: String?

    @Argument(help: ArgumentHelp("A receipt file (raw DER or base64 text).", valueName: "receipt-file"))
    var receiptFile: String?

    @Option(help: "The ledger's owner of the purchases (1 to 256 bytes of UTF-8).")
    var account: String?

    @Option(
        help: ArgumentHelp(
            "Which of the --bundle-id apps the history is about; needed with --transaction-id when several are configured.",
            valueName: "bundle-id"))
    var app: String?

    @OptionGroup
    var options: APICommandOptions

    /// The largest receipt file read.
    static let maximumReceiptSize = 8 * 1024 * 1024

    func run() async throws {
        let subject: SyncCall.Subject
        switch (transactionID, receiptFile) {
        case (let id?, nil):
            guard LedgerLimits.isIdentifier(id) else {
                throw ValidationError("--transaction-id takes 1 to 64 letters, digits, '.', '-' or '_'")
            }
            subject = .transactionID(id)
        case (nil, let path?): subject = .receipt(try Self.read(path), isText: false)
        default: throw ValidationError("give a receipt file or --transaction-id, not both")
        }
        let (opened, logger) = try await options.open(command: "sync")
        let call = SyncCall(
            subject: subject, bundleID: app, account: account, auditEndpoint: "receipt-server sync",
            now: ReceiptDate.systemNow())
        do throws(IntakeError) {
            let answer = try await opened.intake.sync(call, logger: logger)
            print(String(decoding: LedgerJSON.sync(answer), as: UTF8.self))
        } catch {
            FileHandle.standardError.write(Data("receipt-server sync: \(error.code): \(error.reason)\n".utf8))
            await opened.ledger.close()
            throw ExitCode(Self.exitCode(error.code))
        }
        await opened.ledger.close()
    }

    /// sysexits: 65 for a receipt that is not valid, 64 for a call the configuration cannot take, 69 for Apple or the
    /// ledger unavailable, 70 otherwise.
    static func exitCode(_ code: IntakeError.Code) -> Int32 {
        switch code {
        case .receiptNotVerified, .invalidBase64, .transactionNotFound: 65
        case .bundleIDRequired, .unknownApp, .serverAPIDisabled, .ledgerDisabled: 64
        case .serverAPIFailed, .ledgerUnavailable, .overloaded: 69
        default: 70
        }
    }

    static func read(_ path: String) throws -> [UInt8] {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size <= maximumReceiptSize, let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read \(path) (a regular file of at most \(maximumReceiptSize) bytes)")
        }
        return Array(data)
    }
}
