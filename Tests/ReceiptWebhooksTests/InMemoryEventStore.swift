import ReceiptLedger
import ReceiptModel
import ReceiptVerification
import Synchronization

/// A `LedgerStore` that keeps only events, in memory, with the protocol's documented semantics for the event calls
/// (per-key heads, leases, settlement by the lease's owner only): the deliverer's tests run against it, the main
/// ones beside the SQLite and PostgreSQL stores (``EventStoreUnderTest``). Its other calls throw.
final class InMemoryEventStore: LedgerStore {
    private struct Stored {
        var event: LedgerEvent
        var leaseOwner: String?
        var leaseUntil: ReceiptDate?
    }

    private let stored = Mutex<[Stored]>([])

    /// Adds events as if committed, in this order (their `sequence` is set here).
    func add(_ events: [LedgerEvent]) {
        stored.withLock { stored in
            for var event in events {
                event.sequence = Int64(stored.count + 1)
                stored.append(Stored(event: event))
            }
        }
    }

    /// The event with this id as the store holds it now.
    func event(_ id: String) -> LedgerEvent? {
        stored.withLock { $0.first { $0.event.id == id }?.event }
    }

    var all: [LedgerEvent] { stored.withLock { $0.map(\.event) } }

    func settleAndClaimEvents(
        settling: [String: LedgerEventSettlement], owner: String, now: ReceiptDate, leaseUntil: ReceiptDate, limit: Int
    ) async throws(LedgerError) -> [LedgerEvent] {
        stored.withLock { stored in
            for (id, settlement) in settling { Self.settle(id, owner: owner, settlement, in: &stored) }
            var claimed: [LedgerEvent] = []
            var heldKeys: Set<String> = []
            for index in stored.indices {
                let item = stored[index]
                guard item.event.state == .pending else { continue }
                // An earlier pending event of the same key holds this one back, leased or not.
                guard heldKeys.insert(item.event.key).inserted else { continue }
                guard claimed.count < limit, item.event.nextAttemptAt <= now else { continue }
                if let until = item.leaseUntil, until > now { continue }
                stored[index].leaseOwner = owner
                stored[index].leaseUntil = leaseUntil
                claimed.append(item.event)
            }
            return claimed
        }
    }

    private static func settle(
        _ id: String, owner: String, _ settlement: LedgerEventSettlement, in stored: inout [Stored]
    ) {
        guard let index = stored.firstIndex(where: { $0.event.id == id }), stored[index].leaseOwner == owner
        else { return }
        stored[index].leaseOwner = nil
        stored[index].leaseUntil = nil
        stored[index].event.attempts += 1
        switch settlement {
        case .delivered:
            stored[index].event.state = .delivered
        case .retry(let at, let error):
            stored[index].event.nextAttemptAt = at
            stored[index].event.lastError = error
        case .failed(_, let error):
            stored[index].event.state = .failed
            stored[index].event.lastError = error
        }
    }

    func events(_ query: LedgerEventQuery) async throws(LedgerError) -> [LedgerEvent] {
        stored.withLock { stored in
            Array(
                stored.map(\.event).filter { event in
                    (!query.onlyFailed || event.state == .failed) && (query.since.map { event.createdAt >= $0 } ?? true)
                }
                .prefix(query.limit))
        }
    }

    func requeueEvents(ids: [String]?, now: ReceiptDate) async throws(LedgerError) -> Int {
        stored.withLock { stored in
            var count = 0
            for index in stored.indices {
                let event = stored[index].event
                let chosen = ids.map { $0.contains(event.id) } ?? (event.state == .failed)
                guard chosen, event.state != .pending else { continue }
                stored[index].event.state = .pending
                stored[index].event.nextAttemptAt = now
                stored[index].event.maxAgeFrom = now
                count += 1
            }
            return count
        }
    }

    func pendingEvents() async throws(LedgerError) -> (count: Int, oldest: ReceiptDate?) {
        stored.withLock { stored in
            let pending = stored.map(\.event).filter { $0.state == .pending }
            return (pending.count, pending.map(\.createdAt).min())
        }
    }

    // MARK: - Not kept here

    func commit(_ entries: [LedgerEntry]) async throws(LedgerError) -> [LedgerOutcome] { throw Self.notKept }
    func transaction(id: String) async throws(LedgerError) -> (LedgerTransaction, owner: String?)? {
        throw Self.notKept
    }
    func transactions(ownedBy account: String) async throws(LedgerError) -> [LedgerTransaction] { throw Self.notKept }
    func renewals(ownedBy account: String) async throws(LedgerError) -> [LedgerRenewal] { throw Self.notKept }
    func subscriptions(originalTransactionIDs: [String]) async throws(LedgerError) -> LedgerSubscriptions {
        throw Self.notKept
    }
    func latestNotificationSignedDate(
        bundleID: String, environment: ReceiptEnvironment
    ) async throws(LedgerError) -> ReceiptDate? { throw Self.notKept }
    func auditEntries(_ query: AuditQuery) async throws(LedgerError) -> [AuditEntry] { throw Self.notKept }
    func close() async {}

    private static var notKept: LedgerError { LedgerError(.unavailable, "the in-memory test store keeps only events") }
}
