public import ReceiptModel

/// One event for the app's backend, written by the ledger in the same transaction as the facts that cause it (a
/// transactional outbox): never an event for a fact that was not committed, never a committed fact without its event.
///
/// Its ``body`` is fixed at commit (the JSON the receiver gets, docs/webhooks.md); the delivery fields move as
/// deliveries are tried (``LedgerStore/claimEvents(owner:now:leaseUntil:limit:)``,
/// ``LedgerStore/settleEvent(id:owner:_:)``).
public struct LedgerEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A transaction recorded for the first time (from a receipt, a signed transaction, a notification or a sync).
        case purchaseNew = "purchase.new"
        /// An entitlement (an account's, or an unbound purchase's) changed state.
        case entitlementChanged = "entitlement.changed"
        /// A transaction's refund (revocation) was recorded.
        case purchaseRefunded = "purchase.refunded"
        /// A refund recorded before was lifted by a statement Apple signed later.
        case purchaseRefundReversed = "purchase.refund_reversed"
        /// A verification named another account than a purchase's owner.
        case ownershipConflict = "ownership.conflict"
    }

    /// Where the event is in its delivery.
    public enum State: String, Sendable, Hashable {
        /// Not delivered yet (possibly leased to a replica trying it now).
        case pending
        /// The receiver answered 2xx.
        case delivered
        /// Parked: still undelivered when it grew older than the maximum age. `webhooks replay` queues it again.
        case failed
    }

    /// Unique and stable across retries (`evt_` and 32 hex digits): receivers deduplicate on it.
    public var id: String
    /// The commit order: events of one ``key`` are delivered in this order.
    public var sequence: Int64
    public var kind: Kind
    /// `account:<account>` when the purchase is bound to an account, else `original:<original transaction id>`.
    public var key: String
    /// When the fact was recorded (the verification's time).
    public var createdAt: ReceiptDate
    /// The JSON the receiver gets.
    public var body: [UInt8]
    public var state: State
    /// Delivery attempts so far.
    public var attempts: Int
    /// The earliest instant the next attempt may start.
    public var nextAttemptAt: ReceiptDate
    /// Where the maximum age counts from: ``createdAt``, or when `webhooks replay` queued it again.
    public var maxAgeFrom: ReceiptDate
    /// Why the last attempt failed (an HTTP status, a timeout), never the body.
    public var lastError: String?

    public init(
        id: String, sequence: Int64 = 0, kind: Kind, key: String, createdAt: ReceiptDate, body: [UInt8],
        state: State = .pending, attempts: Int = 0, nextAttemptAt: ReceiptDate? = nil, maxAgeFrom: ReceiptDate? = nil,
        lastError: String? = nil
    ) {
        self.id = id
        self.sequence = sequence
        self.kind = kind
        self.key = key
        self.createdAt = createdAt
        self.body = body
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt ?? createdAt
        self.maxAgeFrom = maxAgeFrom ?? createdAt
        self.lastError = lastError
    }

    /// A new event id for an event created at `time`: `evt_`, then 32 hex digits: the creation instant's
    /// milliseconds since 1970 (48 bits, clamped) and 80 random bits.
    ///
    /// Ids made in creation order sort (nearly) in that order, so the ledger's unique index on them grows at its end
    /// instead of taking each insert at a random page (which made recording events cost a third more). The 80 random
    /// bits keep ids unguessable and distinct; the time they reveal is the body's `created_at`.
    public static func newID(at time: ReceiptDate) -> String {
        var generator = SystemRandomNumberGenerator()
        let milliseconds = UInt64(clamping: max(0, time.millisecondsSince1970)) & 0xFFFF_FFFF_FFFF
        let random = generator.next() as UInt64
        let more = generator.next() as UInt64
        let high = milliseconds << 16 | random & 0xFFFF
        let hex = { (value: UInt64) -> String in
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return "evt_" + hex(high) + hex(more)
    }
}

/// How one delivery attempt of an event ended, as the deliverer reports it (each counts one attempt).
public enum LedgerEventSettlement: Sendable, Hashable {
    /// The receiver answered 2xx.
    case delivered(at: ReceiptDate)
    /// It failed; try again at that instant.
    case retry(at: ReceiptDate, error: String)
    /// It failed and the event is older than the maximum age: parked as ``LedgerEvent/State/failed``.
    case failed(at: ReceiptDate, error: String)

    /// The instant it was settled (for a retry, when it is due again).
    public var time: ReceiptDate {
        switch self {
        case .delivered(let at), .retry(let at, _), .failed(let at, _): at
        }
    }

    /// Why the attempt failed; `nil` for a delivery.
    public var error: String? {
        switch self {
        case .delivered: nil
        case .retry(_, let error), .failed(_, let error): error
        }
    }
}

/// Which events `webhooks list` reads.
public struct LedgerEventQuery: Sendable, Hashable {
    /// Only parked ones.
    public var onlyFailed: Bool
    /// Only those created at or after this instant.
    public var since: ReceiptDate?
    /// At most this many, in commit order.
    public var limit: Int

    public init(onlyFailed: Bool = false, since: ReceiptDate? = nil, limit: Int = 10_000) {
        self.onlyFailed = onlyFailed
        self.since = since
        self.limit = limit
    }
}
