public import Logging
public import ReceiptLedger

/// The stores, by where the ledger lives. In a module of their own so that a program without a ledger
/// (`verify-local`) links neither storage engine.
extension Ledger {
    /// Opens the store at `location` (creating and migrating it, unless `options` say read-only); `nil` for
    /// `none`.
    /// - Throws: ``LedgerError``.
    public static func openStore(
        _ location: LedgerLocation, options: LedgerStoreOptions = LedgerStoreOptions(), logger: Logger
    ) async throws(LedgerError) -> (any LedgerStore)? {
        switch location {
        case .none: return nil
        case .sqlite(let path): return try SQLiteLedgerStore(path: path, options: options)
        case .postgres(let server):
            return try await PostgresLedgerStore(location: server, options: options, logger: logger)
        }
    }
}
