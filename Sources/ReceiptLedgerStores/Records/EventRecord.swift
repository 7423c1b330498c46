import ReceiptLedger
import ReceiptModel

/// A `ledger_events` row: one event of the outbox, its body fixed at commit, its delivery state moving as deliveries
/// are tried (the lease: which replica tries it now, and until when).
struct EventRecord: LedgerRecord {
    /// The columns, in the order the stores bind and read them.
    enum Column: String, LedgerColumn {
        case sequence = "seq"
        case id = "event_id"
        case kind
        case key = "event_key"
        case created = "created_ms"
        case body
        case state
        case attempts
        case nextAttempt = "next_attempt_ms"
        case maxAgeFrom = "max_age_from_ms"
        case lastError = "last_error"
        case leaseOwner = "lease_owner"
        case leaseUntil = "lease_until_ms"
        case settled = "settled_ms"

        static let table = "ledger_events"

        var type: LedgerColumnType {
            switch self {
            case .sequence, .created, .attempts, .nextAttempt, .maxAgeFrom, .leaseUntil, .settled: .integer
            case .id, .kind, .key, .body, .state, .lastError, .leaseOwner: .text
            }
        }

        /// All but the sequence: the database numbers events in commit order.
        static let inserted = allCases.filter { $0 != .sequence }
    }

    var event: LedgerEvent

    init(_ event: LedgerEvent) { self.event = event }

    func value(_ column: Column) -> LedgerValue {
        switch column {
        case .sequence: .integer(event.sequence)
        case .id: .text(event.id)
        case .kind: .text(event.kind.rawValue)
        case .key: .text(event.key)
        case .created: .integer(event.createdAt.millisecondsSince1970)
        case .body: .text(String(decoding: event.body, as: UTF8.self))
        case .state: .text(event.state.rawValue)
        case .attempts: .integer(Int64(event.attempts))
        case .nextAttempt: .integer(event.nextAttemptAt.millisecondsSince1970)
        case .maxAgeFrom: .integer(event.maxAgeFrom.millisecondsSince1970)
        case .lastError: LedgerValue(event.lastError)
        // A new event is leased to no one and settled never.
        case .leaseOwner, .leaseUntil, .settled: .null
        }
    }

    init(reading row: some LedgerRow) throws {
        let kind = try row.required(text: Column.kind)
        let state = try row.required(text: Column.state)
        // The ledger writes nothing else: another word is a hand-edited row, refused rather than guessed.
        guard let typedKind = LedgerEvent.Kind(rawValue: kind), let typedState = LedgerEvent.State(rawValue: state)
        else { throw LedgerError(.unavailable, "ledger_events holds an unknown kind or state") }
        event = LedgerEvent(
            id: try row.required(text: Column.id),
            sequence: try row.required(integer: Column.sequence),
            kind: typedKind,
            key: try row.required(text: Column.key),
            createdAt: ReceiptDate(clampingMillisecondsSince1970: try row.required(integer: Column.created)),
            body: Array(try row.required(text: Column.body).utf8),
            state: typedState,
            attempts: Int(clamping: try row.required(integer: Column.attempts)),
            nextAttemptAt: ReceiptDate(clampingMillisecondsSince1970: try row.required(integer: Column.nextAttempt)),
            maxAgeFrom: ReceiptDate(clampingMillisecondsSince1970: try row.required(integer: Column.maxAgeFrom)),
            lastError: try row.text(Column.lastError))
    }
}
