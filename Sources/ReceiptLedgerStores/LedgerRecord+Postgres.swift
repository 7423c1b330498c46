import PostgresNIO
import ReceiptLedger

// The records as postgres-nio reads them: a fetched row's cells by column name.

extension PostgresRandomAccessRow: LedgerRow {
    func text(_ name: String) throws -> String? { try cell(name).decode(String?.self) }
    func integer(_ name: String) throws -> Int64? { try cell(name).decode(Int64?.self) }

    private func cell(_ name: String) throws -> PostgresCell {
        guard contains(name) else { throw LedgerError(.unavailable, "the ledger's row has no column \(name)") }
        return self[name]
    }
}
