import ArgumentParser
import Foundation
import ReceiptIntake
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification

/// `receipt-server notifications backfill`: Get Notification History for each configured app, applied through the
/// intake as if pushed. Prints one JSON line per app and environment.
@available(macOS 10.15, *)
struct NotificationBackfillCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backfill",
        abstract: "Fetch and apply the notifications Apple sent in a time range (none is applied twice).",
        discussion: """
            For each --bundle-id, in Production and Sandbox (or the one --history-environment names), fetches Get \
            Notification History from --since (default: the signedDate of the latest notification the ledger holds \
            for that app and environment; never before Apple's window: 180 days in Production, 30 in Sandbox) to \
            --until (default now), verifies each signedPayload and applies it exactly as a pushed one: one the ledger \
            holds is a duplicate, older renewal state never replaces newer. Prints, per app and environment: \
            {"bundle_id","environment","since","until","pages","seen","applied":[notificationUUID…],"duplicates",\
            "failed":[{"index","reason","message"}]}. Exits 69 when Apple or the ledger cannot be reached (what was \
            applied stays applied). Takes serve's trust, ledger and App Store Server API flags.
            """)

    @Option(help: ArgumentHelp("The start of the range (RFC 3339).", valueName: "instant"))
    var since: String?

    @Option(help: ArgumentHelp("The end of the range (RFC 3339). Default now.", valueName: "instant"))
    var until: String?

    @Option(
        name: .customLong("history-environment"),
        help: ArgumentHelp("Only this environment's history: Production or Sandbox.", valueName: "name"))
    var historyEnvironment: String?

    @OptionGroup
    var options: APICommandOptions

    func run() async throws {
        let start = try since.map { text in
            guard let date = ReceiptDate(rfc3339: text) else {
                throw ValidationError("--since takes an RFC 3339 instant")
            }
            return date
        }
        let end = try until.map { text in
            guard let date = ReceiptDate(rfc3339: text) else {
                throw ValidationError("--until takes an RFC 3339 instant")
            }
            return date
        }
        let environments: [ReceiptEnvironment]
        switch historyEnvironment {
        case nil: environments = [.production, .sandbox]
        case "Production": environments = [.production]
        case "Sandbox": environments = [.sandbox]
        case let other?: throw ValidationError("--history-environment takes Production or Sandbox, not \(other)")
        }
        let (opened, logger) = try await options.open(command: "notifications backfill")
        var failure: IntakeError?
        for bundleID in opened.bundleIDs {
            for environment in environments {
                let call = BackfillCall(
                    bundleID: bundleID, environment: environment, since: start, until: end,
                    auditEndpoint: "receipt-server notifications backfill", now: ReceiptDate.systemNow())
                do throws(IntakeError) {
                    let report = try await opened.intake.backfillNotifications(call, logger: logger)
                    print(String(decoding: LedgerJSON.backfill(report), as: UTF8.self))
                } catch {
                    FileHandle.standardError.write(
                        Data(
                            "receipt-server notifications backfill: \(bundleID) \(environment.endpointName): \(error.code): \(error.reason)\n"
                                .utf8))
                    failure = failure ?? error
                }
            }
        }
        await opened.ledger.close()
        if let failure { throw ExitCode(SyncCommand.exitCode(failure.code)) }
    }
}
