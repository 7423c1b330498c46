import ReceiptLedger

/// One table's row as a Swift value: what each of its columns (``Column``) holds, written and read in one place for
/// both stores. A store binds ``value(_:)`` in its own way and reads a fetched row through ``LedgerRow``.
protocol LedgerRecord: Sendable {
    associatedtype Column: LedgerColumn
    /// The value `column` holds for this record.
    func value(_ column: Column) -> LedgerValue
    /// The record of a fetched row, its cells read by column name.
    /// - Throws: ``LedgerError`` `ledger.unavailable` for a NULL in a column the record requires, or a cell of
    ///   another type (only a hand-edited database).
    init(reading row: some LedgerRow) throws
}

/// A fetched row whose cells are read by their column's name, whatever the store.
protocol LedgerRow {
    /// The text in column `name`; `nil` for NULL.
    func text(_ name: String) throws -> String?
    /// The integer in column `name`; `nil` for NULL.
    func integer(_ name: String) throws -> Int64?
}

extension LedgerRow {
    func text<Column: LedgerColumn>(_ column: Column) throws -> String? { try text(column.name) }
    func integer<Column: LedgerColumn>(_ column: Column) throws -> Int64? { try integer(column.name) }

    /// The text of a NOT NULL column.
    func required<Column: LedgerColumn>(text column: Column) throws -> String {
        guard let value = try text(column.name) else { throw Self.null(column) }
        return value
    }

    /// The text of a selected value that is never NULL (a key of the query's own).
    func required(text name: String) throws -> String {
        guard let value = try text(name) else {
            throw LedgerError(.unavailable, "\(name) is NULL in a row of the ledger")
        }
        return value
    }

    /// The integer of a NOT NULL column.
    func required<Column: LedgerColumn>(integer column: Column) throws -> Int64 {
        guard let value = try integer(column.name) else { throw Self.null(column) }
        return value
    }

    private static func null<Column: LedgerColumn>(_ column: Column) -> LedgerError {
        LedgerError(.unavailable, "\(Column.table).\(column.name) is NULL in a row of the ledger")
    }
}
