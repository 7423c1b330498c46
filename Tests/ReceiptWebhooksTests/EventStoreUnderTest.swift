import Foundation
import Logging
import ReceiptLedger
import ReceiptLedgerStores
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

/// The outbox a delivery test runs against: the in-memory one (``InMemoryEventStore``), or a real SQLite or PostgreSQL
/// ledger that records events, filled through real commits, so the deliverer meets the stores' own leases and
/// settlements. PostgreSQL needs the throw-away cluster `scripts/test` starts; without it the case is skipped.
final class EventStoreUnderTest {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case memory, sqlite, postgres
        var testDescription: String { rawValue }

        /// Whether this kind can run here.
        var isAvailable: Bool { self != .postgres || PostgresTestDatabase.clusterURL != nil }
    }

    let kind: Kind
    let store: any LedgerStore
    private let memory: InMemoryEventStore?
    private let ledger: Ledger?
    // Kept for the store's lifetime: the SQLite file's folder, the PostgreSQL database (dropped with this value).
    private let folder: TemporaryFolder?
    private let database: PostgresTestDatabase?

    private init(
        kind: Kind, store: any LedgerStore, memory: InMemoryEventStore?, folder: TemporaryFolder?,
        database: PostgresTestDatabase?
    ) {
        self.kind = kind
        self.store = store
        self.memory = memory
        self.ledger = memory == nil ? Ledger(store: store) : nil
        self.folder = folder
        self.database = database
    }

    /// A fresh, empty outbox of `kind`.
    static func open(_ kind: Kind) async throws -> EventStoreUnderTest {
        var logger = Logger(label: "webhook-test-ledger")
        logger.logLevel = .critical
        let options = LedgerStoreOptions(recordsEvents: true)
        switch kind {
        case .memory:
            let memory = InMemoryEventStore()
            return EventStoreUnderTest(kind: kind, store: memory, memory: memory, folder: nil, database: nil)
        case .sqlite:
            let folder = try TemporaryFolder()
            let path = folder.url.appendingPathComponent("ledger.sqlite").path
            let store = try #require(try await Ledger.openStore(.sqlite(path: path), options: options, logger: logger))
            return EventStoreUnderTest(kind: kind, store: store, memory: nil, folder: folder, database: nil)
        case .postgres:
            let database = try await PostgresTestDatabase.create(prefix: "webhook_delivery")
            do {
                let location = try LedgerLocation(parsing: database.url)
                let opened = try await database.opening { [logger] in
                    try await Ledger.openStore(location, options: options, logger: logger)
                }
                let store = try #require(opened)
                return EventStoreUnderTest(kind: kind, store: store, memory: nil, folder: nil, database: database)
            } catch {
                database.drop()
                throw error
            }
        }
    }

    /// Commits one `purchase.new` event per name, in this order, at `time`, under `key`: `account:NAME` is a purchase
    /// bound to that account, `original:NAME` an unbound one with that original transaction id. Each name is a
    /// transaction id (a consumable's: no `entitlement.changed` follows). A real store gets each through a commit of
    /// its own.
    /// - Returns: the events written, in commit order.
    @discardableResult
    func commit(_ purchases: [(name: String, key: String)], at time: ReceiptDate) async throws -> [LedgerEvent] {
        if let memory {
            let events = purchases.map { name, key in
                LedgerEvent(
                    id: LedgerEvent.newID(at: time), kind: .purchaseNew, key: key, createdAt: time,
                    body: Array(#"{"type":"purchase.new","name":"\#(name)","key":"\#(key)"}"#.utf8))
            }
            memory.add(events)
            return try await all()
        }
        let ledger = try #require(ledger)
        let before = try await all().count
        for (name, key) in purchases {
            let (prefix, value) = try #require(Self.split(key))
            let account = prefix == "account" ? value : nil
            let transaction = LedgerTransaction(
                transactionID: name, originalTransactionID: account == nil ? value : name,
                productID: "product.\(name)", kind: .consumable, bundleID: "org.example", environment: .sandbox,
                purchaseDate: time, source: .receipt, firstSeen: time, lastSeen: time)
            let outcome = try await ledger.record(
                LedgerEntry(
                    time: time, endpoint: "/v1/verify", receiptSHA256: "ab", verdict: .valid, reason: nil,
                    decidedBy: .local, account: account, transactions: [transaction]))
            #expect(outcome.newTransactionIDs == [name])
        }
        let events = Array(try await all().dropFirst(before))
        #expect(events.map(\.key) == purchases.map(\.key), "each purchase keyed as asked")
        return events
    }

    /// Every event as the store holds it now, in commit order.
    func all() async throws -> [LedgerEvent] {
        try await store.events(LedgerEventQuery())
    }

    /// The event with this id as the store holds it now.
    func event(_ id: String) async throws -> LedgerEvent? {
        try await all().first { $0.id == id }
    }

    /// Closes the store; what it was kept in goes with this value.
    func close() async { await store.close() }

    deinit { database?.drop() }

    private static func split(_ key: String) -> (String, String)? {
        guard let colon = key.firstIndex(of: ":") else { return nil }
        return (String(key[..<colon]), String(key[key.index(after: colon)...]))
    }
}
