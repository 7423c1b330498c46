import BER
@_spi(Fuzzing) public import ReceiptModel

/// How the audit trail's two list columns hold their values (`new_transaction_ids`, `conflicts`): JSON arrays
/// written and read here only. The shapes are the ones the server's answers and the audit export use too, so those
/// write them through ``write(ids:to:)`` and ``write(conflicts:to:)``.
@_spi(Fuzzing) public enum LedgerColumnJSON {
    /// `["id",…]`.
    public static func write(ids: [String], to writer: inout JSONWriter) {
        writer.beginArray()
        for id in ids { writer.string(id) }
        writer.endArray()
    }

    /// `[{"original_transaction_id","account","transaction_ids":[…]},…]`.
    public static func write(conflicts: [LedgerConflict], to writer: inout JSONWriter) {
        writer.beginArray()
        for conflict in conflicts {
            writer.beginObject()
            writer.field("original_transaction_id", conflict.originalTransactionID)
            writer.field("account", conflict.owner)
            writer.key("transaction_ids")
            write(ids: conflict.transactionIDs, to: &writer)
            writer.endObject()
        }
        writer.endArray()
    }

    /// The text of an id list column.
    package static func column(ids: [String]) -> String {
        if ids.isEmpty { return "[]" }
        var writer = JSONWriter(capacity: 16 + 24 * ids.count)
        write(ids: ids, to: &writer)
        return writer.string
    }

    /// The text of a conflicts column.
    package static func column(conflicts: [LedgerConflict]) -> String {
        if conflicts.isEmpty { return "[]" }
        var writer = JSONWriter(capacity: 2 + 96 * conflicts.count)
        write(conflicts: conflicts, to: &writer)
        return writer.string
    }

    /// An id list column read back.
    /// - Throws: ``LedgerError/Code/unavailable`` for text the ledger never writes (a hand-edited row): refused,
    ///   never read as an empty list.
    public static func ids(column text: String) throws(LedgerError) -> [String] {
        let values = try array(text, "an id list")
        var ids: [String] = []
        for value in values {
            guard let id = value.stringValue else { throw malformed("an id list") }
            ids.append(id)
        }
        return ids
    }

    /// A conflicts column read back.
    /// - Throws: ``LedgerError/Code/unavailable`` for text the ledger never writes.
    public static func conflicts(column text: String) throws(LedgerError) -> [LedgerConflict] {
        var conflicts: [LedgerConflict] = []
        for value in try array(text, "a conflicts list") {
            guard let object = value.objectValue, let original = object.text("original_transaction_id"),
                let owner = object.text("account"), let listed = object["transaction_ids"]?.arrayValue
            else { throw malformed("a conflicts list") }
            let ids = listed.compactMap(\.stringValue)
            guard ids.count == listed.count else { throw malformed("a conflicts list") }
            conflicts.append(LedgerConflict(originalTransactionID: original, owner: owner, transactionIDs: ids))
        }
        return conflicts
    }

    private static func array(_ text: String, _ what: String) throws(LedgerError) -> [JSONValue] {
        var reader = JSONReader(Array(text.utf8), maximumDepth: 8)
        do {
            guard let values = try reader.document().arrayValue else { throw malformed(what) }
            return values
        } catch {
            throw malformed(what)
        }
    }

    private static func malformed(_ what: String) -> LedgerError {
        LedgerError(.unavailable, "a ledger column that should hold \(what) does not")
    }
}
