import ArgumentParser
import Foundation
import Logging
import ReceiptLedger
import ReceiptLedgerStores

/// The flags every command that opens the ledger shares: where it is, the product catalogue and the conflict policy
/// (`--ledger`, `--products`, `--on-conflict`), each with its environment variable.
struct LedgerOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Where the ledger is: sqlite:PATH, postgres://USER@HOST:PORT/DATABASE or none [RECEIPT_SERVER_LEDGER]. Default sqlite:receipt-ledger.sqlite. A PostgreSQL password comes from RECEIPT_SERVER_LEDGER_PASSWORD or the URL. A SQLite write waits RECEIPT_SERVER_LEDGER_BUSY_TIMEOUT seconds (default 5) for another process's lock, a PostgreSQL call RECEIPT_SERVER_LEDGER_DEADLINE seconds (default 10), then answers 503 ledger.unavailable. Each commit that changes what the ledger knows is synced to disk (SQLite FULL, PostgreSQL synchronous_commit on); RECEIPT_SERVER_LEDGER_SYNC=every-commit syncs repeat sightings and their audit entries too.",
            valueName: "location"))
    var ledger: String?

    @Option(
        name: .customLong("products"),
        help: ArgumentHelp(
            "Product kinds for the ledger: a JSON object of product id to consumable, non_consumable, auto_renewable or non_renewing [RECEIPT_SERVER_PRODUCTS].",
            valueName: "file"))
    var products: String?

    @Option(
        name: .customLong("on-conflict"),
        help: ArgumentHelp(
            "A verification naming another account than a purchase's owner: report it, or reject it as invalid (ledger.conflict) [RECEIPT_SERVER_ON_CONFLICT]. Default report.",
            valueName: "report|reject"))
    var onConflict: String?

    /// Where the ledger is and how it runs.
    struct LedgerSettings {
        var location: LedgerLocation
        var catalogue: ProductCatalogue
        var onConflict: ConflictPolicy
        var storeOptions: LedgerStoreOptions
    }

    /// The ledger's location, catalogue, conflict policy and store options. With the ledger on, the operator's apps
    /// must be named: a ledger credits what it records, and without them a receipt of anyone's app (one using the
    /// victim's product ids) would become an entitlement.
    func ledgerSettings(_ env: ServeEnvironment, bundles: [String]) throws -> LedgerSettings {
        let conflictName = onConflict ?? env.text("RECEIPT_SERVER_ON_CONFLICT") ?? "report"
        guard let conflictPolicy = ConflictPolicy(rawValue: conflictName) else {
            throw ValidationError("--on-conflict takes report or reject")
        }
        let location: LedgerLocation
        let catalogue: ProductCatalogue
        do throws(LedgerError) {
            if let text = ledger ?? env.text("RECEIPT_SERVER_LEDGER") {
                location = try LedgerLocation(parsing: text, password: env.text("RECEIPT_SERVER_LEDGER_PASSWORD"))
            } else {
                location = LedgerLocation.defaultLocation
            }
            if let path = products ?? env.text("RECEIPT_SERVER_PRODUCTS") {
                catalogue = try Self.catalogue(path)
            } else {
                catalogue = ProductCatalogue()
            }
        } catch {
            throw ValidationError(error.reason)
        }
        if location != .none, bundles.isEmpty {
            throw ValidationError(
                "the ledger is on (\(location)) and no app is configured: add --bundle-id <your app's bundle id> "
                    + "(repeatable) [RECEIPT_SERVER_BUNDLE_IDS], so that only your apps' purchases are recorded, "
                    + "or run without a ledger: --ledger none")
        }
        let syncEveryCommit: Bool
        switch env.text("RECEIPT_SERVER_LEDGER_SYNC") ?? "changes" {
        case "changes": syncEveryCommit = false
        case "every-commit": syncEveryCommit = true
        default: throw ValidationError("RECEIPT_SERVER_LEDGER_SYNC takes changes or every-commit")
        }
        let storeOptions = LedgerStoreOptions(
            busyTimeout: try env.seconds(
                nil, "RECEIPT_SERVER_LEDGER_BUSY_TIMEOUT", "RECEIPT_SERVER_LEDGER_BUSY_TIMEOUT", default: 5),
            deadline: try env.seconds(
                nil, "RECEIPT_SERVER_LEDGER_DEADLINE", "RECEIPT_SERVER_LEDGER_DEADLINE", default: 10),
            syncEveryCommit: syncEveryCommit)
        return LedgerSettings(
            location: location, catalogue: catalogue, onConflict: conflictPolicy, storeOptions: storeOptions)
    }

    /// Opens (creating and migrating) the ledger; `nil` for `--ledger none`. A store that cannot be opened is
    /// logged and exits 69 (`EX_UNAVAILABLE`).
    static func openLedger(_ settings: LedgerSettings, logger: Logger) async throws -> Ledger? {
        do throws(LedgerError) {
            let store = try await Ledger.openStore(settings.location, options: settings.storeOptions, logger: logger)
            let opened = store.map {
                Ledger(store: $0, catalogue: settings.catalogue, onConflict: settings.onConflict)
            }
            if let sqlite = store as? SQLiteLedgerStore, try await sqlite.holdsSubscriptionState() {
                opened?.noteSubscriptionState()
            }
            return opened
        } catch {
            logger.critical(
                "cannot open the ledger", metadata: ["ledger": "\(settings.location)", "error": "\(error)"])
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
    }

    /// The product catalogue at `path`.
    static func catalogue(_ path: String) throws(LedgerError) -> ProductCatalogue {
        // The size first: a catalogue is read whole, so a huge file (or a device) is refused unread.
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size <= ProductCatalogue.maximumSize,
            let data = FileManager.default.contents(atPath: path)
        else {
            throw LedgerError(
                .invalidCatalogue,
                "cannot read the product catalogue \(path) (a regular file of at most \(ProductCatalogue.maximumSize) bytes)"
            )
        }
        return try ProductCatalogue(json: Array(data))
    }

}
