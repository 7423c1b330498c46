import GRDB
import ReceiptLedger

// The records as GRDB reads and binds them: a fetched `Row` read by column name, a value bound as GRDB's own.

extension LedgerValue {
    /// The value as GRDB binds it.
    var databaseValue: DatabaseValue {
        switch self {
        case .text(let text): text.databaseValue
        case .integer(let integer): integer.databaseValue
        case .null: .null
        }
    }
}

extension Row: LedgerRow {
    func text(_ name: String) throws -> String? { try decode(String?.self, forColumn: name) }
    func integer(_ name: String) throws -> Int64? { try decode(Int64?.self, forColumn: name) }
}

extension TransactionRecord: FetchableRecord {
    init(row: Row) throws { try self.init(reading: row) }
}

extension RenewalRecord: FetchableRecord {
    init(row: Row) throws { try self.init(reading: row) }
}

extension OwnerRecord: FetchableRecord {
    init(row: Row) throws { try self.init(reading: row) }
}

extension AuditRecord: FetchableRecord {
    init(row: Row) throws { try self.init(reading: row) }
}

extension AccountTokenRecord: FetchableRecord {
    init(row: Row) throws { try self.init(reading: row) }
}

extension EventRecord: FetchableRecord {
    init(row: Row) throws { try self.init(reading: row) }
}
