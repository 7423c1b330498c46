import GRDB
import GRDBSQLite
import ReceiptLedger

/// A statement GRDB prepared and caches, bound and run with SQLite's own calls.
///
/// For the one statement a batch runs once per verification (its audit entry): there GRDB's argument layer
/// (an array of boxed values, checked, bound, then cleared) cost as much as SQLite's insert itself. Only for
/// statements run inside a batch's transaction, on the writer connection; GRDB's statement observation is not
/// told about them (the ledger registers no observers).
struct SQLiteRawStatement {
    private let handle: SQLiteStatement
    private let db: Database

    /// SQLite copies each bound value before the call returns (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    init(_ statement: Statement, in db: Database) {
        handle = statement.sqliteStatement
        self.db = db
    }

    /// Binds text, with its byte length (an embedded U+0000 is kept), or NULL.
    func bind(_ value: String?, at index: Int32) throws {
        guard let value else { return try check(sqlite3_bind_null(handle, index)) }
        guard let length = Int32(exactly: value.utf8.count) else {
            throw DatabaseError(resultCode: .SQLITE_TOOBIG, message: "a value of \(value.utf8.count) bytes")
        }
        try check(value.withCString { sqlite3_bind_text(handle, index, $0, length, Self.transient) })
    }

    /// Binds an integer.
    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds a column's value.
    func bind(_ value: LedgerValue, at index: Int32) throws {
        switch value {
        case .text(let text): try bind(text, at: index)
        case .integer(let integer): try bind(integer, at: index)
        case .null: try bind(nil as String?, at: index)
        }
    }

    /// Runs the statement to its end, then resets it for the next bindings.
    func run() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage)
        }
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage)
        }
    }
}
