import ReceiptLedger

/// One table's columns, each named once: the conforming enum's cases, in declaration order, are the order in
/// which every statement of both stores names, binds and reads them, and every SQL text that lists them is
/// generated from it (``list(_:prefix:)``, ``recordDefinition``). Only the migrations (``LedgerSchema``) spell the
/// names again, as the history of the schema they are.
protocol LedgerColumn: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == String, AllCases == [Self] {
    /// The table's name.
    static var table: String { get }
    /// How the column stores its values.
    var type: LedgerColumnType { get }
    /// The columns an insert writes, in order: all but those the database assigns (an identity). Stored once per
    /// table: the write path reads it for every row.
    static var inserted: [Self] { get }
}

/// How a column stores its values: text, or a 64-bit integer (SQLite `INTEGER`, PostgreSQL `bigint`).
enum LedgerColumnType: Sendable {
    case text, integer

    /// The PostgreSQL type, for `jsonb_to_recordset`'s record definition.
    var postgres: String {
        switch self {
        case .text: "text"
        case .integer: "bigint"
        }
    }
}

extension LedgerColumn {
    /// The column's name in SQL.
    var name: String { rawValue }

    /// `a, b, c`, or `p.a, p.b, p.c` with a table alias.
    static func list(_ columns: [Self] = allCases, prefix: String = "") -> String {
        columns.map { prefix + $0.name }.joined(separator: ", ")
    }

    /// `a text, b bigint, …` for the inserted columns: the record type of `jsonb_to_recordset`.
    static var recordDefinition: String {
        inserted.map { "\($0.name) \($0.type.postgres)" }.joined(separator: ", ")
    }

    /// The column's 1-based parameter in a statement that binds ``inserted`` in order.
    var parameter: Int32 {
        // Every case is in `inserted` but those the database assigns, which are never bound: 0 makes SQLite refuse
        // the bind (SQLITE_RANGE) rather than bind another column.
        Self.inserted.firstIndex(of: self).map { Int32($0 + 1) } ?? 0
    }
}
