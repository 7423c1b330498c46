import Foundation
import GRDB
import Logging
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

@testable import ReceiptLedger
@testable import ReceiptLedgerStores

/// Each guarantee of the ledger, against both stores: SQLite in a temporary file, PostgreSQL in a fresh
/// database of the throw-away cluster `scripts/test` starts (skipped without it).
@Suite struct LedgerStoreTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// A fresh, empty ledger location of `kind`, and how to remove it.
    final class Place: @unchecked Sendable {
        let kind: Kind
        let folder: TemporaryFolder?
        let database: PostgresTestDatabase?

        init(_ kind: Kind) async throws {
            self.kind = kind
            switch kind {
            case .sqlite:
                folder = try TemporaryFolder()
                database = nil
            case .postgres:
                folder = nil
                database = try await PostgresTestDatabase.create()
            }
        }

        var location: LedgerLocation {
            get throws {
                switch kind {
                case .sqlite: return .sqlite(path: folder?.url.appendingPathComponent("ledger.sqlite").path ?? "")
                case .postgres: return try LedgerLocation(parsing: database?.url ?? "")
                }
            }
        }

        /// Opens a store here; on PostgreSQL, taking its turn (``PostgresTestDatabase/opening(_:)``) unless
        /// `alongsideOthers`, for a test of opens at the same moment.
        func open(_ options: LedgerStoreOptions = LedgerStoreOptions(), alongsideOthers: Bool = false) async throws
            -> any LedgerStore
        {
            let location = try location
            let open: @Sendable () async throws -> (any LedgerStore)? = {
                try await Ledger.openStore(location, options: options, logger: LedgerStoreTests.logger)
            }
            let opened =
                if let database, !alongsideOthers { try await database.opening(open) } else { try await open() }
            guard let store = opened else {
                throw LedgerError(.invalidLocation, "none")
            }
            return store
        }

        deinit { database?.drop() }
    }

    static let logger: Logger = {
        var logger = Logger(label: "ledger-test")
        logger.logLevel = .critical
        return logger
    }()

    static func available(_ kind: Kind) -> Bool { kind == .sqlite || PostgresTestDatabase.clusterURL != nil }

    static func time(_ offset: Int64) -> ReceiptDate {
        ReceiptDate(clampingMillisecondsSince1970: 1_700_000_000_000 + offset)
    }

    static func transaction(
        _ id: String, original: String? = nil, kind: ProductKind = .nonConsumable, expires: ReceiptDate? = nil,
        cancelled: ReceiptDate? = nil, at seen: ReceiptDate = time(0)
    ) -> LedgerTransaction {
        LedgerTransaction(
            transactionID: id, originalTransactionID: original ?? id, productID: "product.\(original ?? id)",
            kind: kind, bundleID: "org.example", environment: .sandbox, purchaseDate: time(-1000),
            expiresDate: expires,
            cancellationDate: cancelled, source: .receipt, firstSeen: seen, lastSeen: seen)
    }

    static func entry(
        _ transactions: [LedgerTransaction], account: String?, onConflict: ConflictPolicy = .report,
        at time: ReceiptDate = time(0)
    ) -> LedgerEntry {
        LedgerEntry(
            time: time, endpoint: "/v1/verify", receiptSHA256: "ab", verdict: .valid, reason: nil, decidedBy: .local,
            account: account, transactions: transactions, onConflict: onConflict)
    }

    /// 40 receipts of 3 transactions each (two under one original id), overlapping their neighbours, sent 4 times
    /// each from 4 accounts, all at once through two ledgers (two replicas) on one store.
    @Test(arguments: Kind.allCases)
    func eachIDIsNewExactlyOnceAndEachPurchaseHasOneOwner(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let stores = [try await place.open(), try await place.open()]
        let ledgers = stores.map { Ledger(store: $0, maximumBatch: 16) }
        let receipts = (0..<40).map { index in
            [
                Self.transaction("t\(index)a", original: "o\(index)"),
                Self.transaction("t\(index)b", original: "o\(index)"),
                Self.transaction("t\(index + 1)a", original: "o\(index + 1)"),
            ]
        }
        let outcomes = try await withThrowingTaskGroup(of: (String, LedgerOutcome).self) { group in
            for (index, receipt) in receipts.enumerated() {
                for copy in 0..<4 {
                    let account = "account-\((index + copy) % 4)"
                    let ledger = ledgers[copy % 2]
                    group.addTask { (account, try await ledger.record(Self.entry(receipt, account: account))) }
                }
            }
            var all: [(String, LedgerOutcome)] = []
            for try await outcome in group { all.append(outcome) }
            return all
        }
        let reportedNew = outcomes.flatMap(\.1.newTransactionIDs)
        let everyID = Set(receipts.flatMap { $0.map(\.transactionID) })
        #expect(reportedNew.count == everyID.count)
        #expect(Set(reportedNew) == everyID)
        // One owner per original id: the accounts answered without a conflict for it are exactly one.
        var unconflicted: [String: Set<String>] = [:]
        let originalOf = Dictionary(
            receipts.joined().map { ($0.transactionID, $0.originalTransactionID) },
            uniquingKeysWith: { first, _ in first })
        for (account, outcome) in outcomes {
            let conflicted = Set(outcome.conflicts.map(\.originalTransactionID))
            for id in outcome.newTransactionIDs + outcome.knownTransactionIDs {
                guard let original = originalOf[id], !conflicted.contains(original) else { continue }
                unconflicted[original, default: []].insert(account)
            }
        }
        for (original, accounts) in unconflicted {
            #expect(accounts.count == 1, "\(original) answered unconflicted to \(accounts.sorted())")
            let held = try await stores[0].transaction(id: "t\(original.dropFirst())a")
            #expect(held?.owner == accounts.first)
        }
        let audit = try await stores[1].auditEntries(AuditQuery())
        #expect(audit.count == outcomes.count)
        #expect(Set(audit.map(\.sequence)).count == audit.count, "sequence numbers are unique")
        #expect(audit.flatMap(\.newTransactionIDs).sorted() == reportedNew.sorted(), "the trail matches the answers")
        for store in stores { await store.close() }
    }

    @Test(arguments: Kind.allCases)
    func rejectingAConflictRecordsOnlyTheAuditEntry(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store, onConflict: .reject)
        let first = try await ledger.record(Self.entry([Self.transaction("1")], account: "alice", onConflict: .reject))
        #expect(first.newTransactionIDs == ["1"])
        let refused = try await ledger.record(
            Self.entry([Self.transaction("1"), Self.transaction("2")], account: "bob", onConflict: .reject))
        #expect(refused.isRejected)
        #expect(refused.newTransactionIDs.isEmpty)
        #expect(refused.conflicts.map(\.owner) == ["alice"])
        #expect(try await store.transaction(id: "2") == nil)
        let later = try await ledger.record(Self.entry([Self.transaction("2")], account: "carol", onConflict: .reject))
        #expect(later.newTransactionIDs == ["2"], "the refused verification bound and recorded nothing")
        let audit = try await store.auditEntries(AuditQuery(account: "bob"))
        #expect(audit.map(\.verdict) == [.invalid])
        #expect(audit.map(\.reason?.description) == ["ledger.conflict"])
        await store.close()
    }

    /// A receipt recorded whole is answered from its key the next time it comes for the same audience: every
    /// transaction known, its audit entry written, and no transaction read or touched (their `lastSeen` stays).
    /// Another transaction list under the same digest, another audience, or a conflict each take the full path.
    @Test(arguments: Kind.allCases)
    func aReceiptSeenAgainIsAnsweredFromItsKey(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        let purchases = [Self.transaction("r1"), Self.transaction("r2", original: "o1")]
        let first = try await ledger.record(Self.entry(purchases, account: "alice", at: Self.time(0)))
        #expect(first.newTransactionIDs == ["r1", "r2"])

        let again = try await ledger.record(Self.entry(purchases, account: "alice", at: Self.time(10)))
        #expect(again == LedgerOutcome(knownTransactionIDs: ["r1", "r2"]))
        #expect(try await store.transaction(id: "r1")?.0.lastSeen == Self.time(0), "answered from the key")
        #expect(try await store.auditEntries(AuditQuery()).count == 2)

        // The same digest claimed for other transactions: recorded in full.
        let other = try await ledger.record(Self.entry([Self.transaction("r3")], account: "alice", at: Self.time(20)))
        #expect(other.newTransactionIDs == ["r3"])

        // Another account: a conflict, reported every time (never remembered).
        for time in [30, 40] {
            let conflicting = try await ledger.record(Self.entry(purchases, account: "bob", at: Self.time(Int64(time))))
            #expect(conflicting.conflicts.map(\.originalTransactionID) == ["r1", "o1"])
        }
        // No account: new to that audience once, then answered from its own key.
        let anonymous = try await ledger.record(Self.entry(purchases, account: nil, at: Self.time(50)))
        #expect(anonymous.newTransactionIDs == ["r1", "r2"])
        let seen = try #require(try await store.transaction(id: "r1")?.0.lastSeen)
        let anonymousAgain = try await ledger.record(Self.entry(purchases, account: nil, at: Self.time(60)))
        #expect(anonymousAgain == LedgerOutcome(knownTransactionIDs: ["r1", "r2"]))
        // The full path would have moved it to the verification's time.
        #expect(try await store.transaction(id: "r1")?.0.lastSeen == seen)
        #expect(seen != Self.time(60))
        #expect(try await store.auditEntries(AuditQuery()).count == 7)
        await store.close()
    }

    /// Facts recorded after a receipt (a refund) stand when the receipt is seen again, answered from its key.
    @Test(arguments: Kind.allCases)
    func aRefundRecordedLaterStandsWhenTheReceiptIsSeenAgain(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        let receipt = Self.entry([Self.transaction("f1")], account: "carol", at: Self.time(0))
        _ = try await ledger.record(receipt)
        var refund = Self.entry(
            [Self.transaction("f1", cancelled: Self.time(5), at: Self.time(10))], account: "carol", at: Self.time(10))
        refund.receiptSHA256 = "later"
        _ = try await ledger.record(refund)
        var seenAgain = receipt
        seenAgain.time = Self.time(20)
        #expect(try await ledger.record(seenAgain) == LedgerOutcome(knownTransactionIDs: ["f1"]))
        #expect(try await store.transaction(id: "f1")?.0.cancellationDate == Self.time(5))
        await store.close()
    }

    @Test(arguments: Kind.allCases)
    func aKnownTransactionKeepsItsFirstSightingAndGainsARefund(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        _ = try await ledger.record(Self.entry([Self.transaction("1")], account: nil, at: Self.time(0)))
        let refunded = Self.transaction("1", cancelled: Self.time(5), at: Self.time(10))
        let again = try await ledger.record(Self.entry([refunded], account: nil, at: Self.time(10)))
        #expect(again.knownTransactionIDs == ["1"])
        let held = try #require(try await store.transaction(id: "1"))
        #expect(held.0.firstSeen == Self.time(0))
        #expect(held.0.lastSeen == Self.time(10))
        #expect(held.0.cancellationDate == Self.time(5))
        // Seen again, in another receipt, without the refund: a refund stays a refund.
        var another = Self.entry([Self.transaction("1", at: Self.time(20))], account: nil, at: Self.time(20))
        another.receiptSHA256 = "cd"
        _ = try await ledger.record(another)
        let still = try #require(try await store.transaction(id: "1"))
        #expect(still.0.cancellationDate == Self.time(5))
        #expect(still.0.lastSeen == Self.time(20))
        await store.close()
    }

    @Test(arguments: Kind.allCases)
    func invalidVerdictsRecordNoTransactionButAnAuditEntry(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        var entry = Self.entry([Self.transaction("1")], account: "alice")
        entry.verdict = .invalid
        entry.reason = .verification(.signatureMismatch)
        let outcome = try await Ledger(store: store).record(entry)
        #expect(outcome == LedgerOutcome())
        #expect(try await store.transaction(id: "1") == nil)
        #expect(try await store.transactions(ownedBy: "alice").isEmpty)
        #expect(try await store.auditEntries(AuditQuery()).map(\.reason?.description) == ["signature.mismatch"])
        await store.close()
    }

    @Test(arguments: Kind.allCases)
    func theAuditTrailFiltersAndRefusesChanges(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        _ = try await ledger.record(Self.entry([Self.transaction("1")], account: "alice", at: Self.time(0)))
        _ = try await ledger.record(Self.entry([Self.transaction("1")], account: "bob", at: Self.time(100)))
        _ = try await ledger.record(Self.entry([Self.transaction("2")], account: "bob", at: Self.time(200)))
        #expect(try await store.auditEntries(AuditQuery(since: Self.time(100))).count == 2)
        #expect(try await store.auditEntries(AuditQuery(account: "bob")).count == 2)
        // Transaction 1: new for alice, a conflict for bob; not bob's entry for transaction 2.
        let one = try await store.auditEntries(AuditQuery(transactionID: "1"))
        #expect(one.map(\.account) == ["alice", "bob"])
        #expect(one.last?.conflicts.first?.owner == "alice")
        let page = try await store.auditEntries(AuditQuery(afterSequence: one.first?.sequence, limit: 1))
        #expect(page.map(\.account) == ["bob"])
        #expect(page.first?.time == Self.time(100))
        switch kind {
        case .sqlite:
            let sqlite = try #require(store as? SQLiteLedgerStore)
            #expect(throws: (any Error).self) {
                try sqlite.pool.write { try $0.execute(sql: "DELETE FROM ledger_audit") }
            }
            #expect(throws: (any Error).self) {
                try sqlite.pool.write { try $0.execute(sql: "UPDATE ledger_audit SET verdict = 'valid'") }
            }
        case .postgres:
            let database = try #require(place.database)
            await #expect(throws: (any Error).self) { try await database.run("DELETE FROM ledger_audit") }
            await #expect(throws: (any Error).self) {
                try await database.run("UPDATE ledger_audit SET verdict = 'valid'")
            }
            await #expect(throws: (any Error).self) { try await database.run("TRUNCATE ledger_audit") }
        }
        #expect(try await store.auditEntries(AuditQuery()).count == 3)
        await store.close()
    }

    /// The typed facts read back as written from each store's text columns: every kind of audit reason, the
    /// verdict and the decider; an environment, and none (the empty text). A text column holding what no case
    /// names (a reason of a later build, an environment written by hand) reads as `unrecognized` and `nil`.
    @Test(arguments: Kind.allCases)
    func typedFactsReadBackFromTheirColumns(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        let reasons: [AuditReason?] = [
            nil, .verification(.signatureMismatch), .verifyReceiptStatus(21007),
            .refusal(code: "server.shared_secret_mismatch"),
        ]
        for (index, reason) in reasons.enumerated() {
            var entry = Self.entry([], account: nil, at: Self.time(Int64(index)))
            entry.verdict = index == 0 ? .valid : .invalid
            entry.reason = reason
            entry.decidedBy = index == 2 ? .remote : .local
            _ = try await ledger.record(entry)
        }
        var unknown = Self.transaction("env-none")
        unknown.environment = nil
        _ = try await ledger.record(Self.entry([Self.transaction("env-sandbox"), unknown], account: "alice"))
        let audit = try await store.auditEntries(AuditQuery())
        #expect(audit.map(\.reason) == reasons + [nil])
        #expect(audit.map(\.verdict) == [.valid, .invalid, .invalid, .invalid, .valid])
        #expect(audit.map(\.decidedBy) == [.local, .local, .remote, .local, .local])
        #expect(try await store.transaction(id: "env-sandbox")?.0.environment == .sandbox)
        #expect(try await store.transaction(id: "env-none")?.0.environment == nil)
        switch kind {
        case .sqlite:
            let sqlite = try #require(store as? SQLiteLedgerStore)
            try await sqlite.pool.write { db in
                try db.execute(sql: "UPDATE ledger_transactions SET environment = 'LocalTesting'")
                try db.execute(sql: "DROP TRIGGER ledger_audit_no_update")
                try db.execute(sql: "UPDATE ledger_audit SET reason = 'later.code' WHERE seq = 1")
            }
        case .postgres:
            let database = try #require(place.database)
            try await database.run("UPDATE ledger_transactions SET environment = 'LocalTesting'")
            try await database.run("ALTER TABLE ledger_audit DISABLE TRIGGER ledger_audit_no_change")
            try await database.run("UPDATE ledger_audit SET reason = 'later.code' WHERE seq = 1")
        }
        #expect(try await store.transaction(id: "env-sandbox")?.0.environment == nil)
        #expect(try await store.auditEntries(AuditQuery(limit: 1)).first?.reason == .unrecognized("later.code"))
        await store.close()
    }

    /// Every field of an audit entry reads back as written, byte for byte: multi-byte UTF-8, an absent reason and
    /// account, the new ids and the conflicts (SQLite binds the audit insert with its own calls).
    @Test(arguments: Kind.allCases)
    func auditEntriesKeepEveryField(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let owner = "caf\u{E9}-\u{65E5}\u{672C}"
        let first = Self.entry([Self.transaction("7"), Self.transaction("8")], account: owner, at: Self.time(5))
        var second = Self.entry([Self.transaction("7")], account: nil, at: Self.time(6))
        second.verdict = .inconclusive
        second.reason = .verification(Reason.Code(layerCode: "remote.unavailable"))
        second.decidedBy = .remote
        second.endpoint = "/verifyReceipt"
        second.receiptSHA256 = String(repeating: "0f", count: 32)
        var third = Self.entry([Self.transaction("8")], account: "cafe\u{301}", at: Self.time(7))
        third.endpoint = ""
        _ = try await store.commit([first, second, third])
        let read = try await store.auditEntries(AuditQuery())
        #expect(read.map(\.account) == [owner, nil, "cafe\u{301}"])
        #expect(read.map(\.endpoint) == ["/v1/verify", "/verifyReceipt", ""])
        #expect(read.map(\.verdict) == [.valid, .inconclusive, .valid])
        #expect(read.map(\.reason?.description) == [nil, "remote.unavailable", nil])
        #expect(read.map(\.decidedBy) == [.local, .remote, .local])
        #expect(read.map(\.time) == [Self.time(5), Self.time(6), Self.time(7)])
        #expect(read.map(\.receiptSHA256) == ["ab", String(repeating: "0f", count: 32), "ab"])
        #expect(read.map(\.newTransactionIDs) == [["7", "8"], [], []])
        #expect(read[2].conflicts == [LedgerConflict(originalTransactionID: "8", owner: owner, transactionIDs: ["8"])])
        #expect(read[0].conflicts.isEmpty && read[1].conflicts.isEmpty)
        await store.close()
    }

    /// Replicas starting together each migrate; the schema is created once.
    @Test(arguments: Kind.allCases)
    func storesOpeningTogetherMigrateOnce(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let stores = try await withThrowingTaskGroup(of: (any LedgerStore).self) { group in
            for _ in 0..<4 { group.addTask { try await place.open(alongsideOthers: true) } }
            var opened: [any LedgerStore] = []
            for try await store in group { opened.append(store) }
            return opened
        }
        let outcome = try await Ledger(store: stores[0]).record(Self.entry([Self.transaction("1")], account: nil))
        #expect(outcome.newTransactionIDs == ["1"])
        switch kind {
        case .sqlite:
            let sqlite = try #require(stores[0] as? SQLiteLedgerStore)
            let versions = try await sqlite.pool.read { try Int.fetchAll($0, sql: "SELECT version FROM ledger_schema") }
            #expect(versions == Array(1...LedgerSchema.latestVersion))
            // Every commit is synced (FULL = 2), and the journal is the WAL.
            let settings = try await sqlite.pool.writeWithoutTransaction { db in
                (try Int.fetchOne(db, sql: "PRAGMA synchronous"), try String.fetchOne(db, sql: "PRAGMA journal_mode"))
            }
            #expect(settings.0 == 2)
            #expect(settings.1 == "wal")
        case .postgres:
            #expect(
                try await place.database?.run(
                    "SELECT string_agg(version::text, ',' ORDER BY version) FROM ledger_schema")
                    == (1...LedgerSchema.latestVersion).map(String.init).joined(separator: ","))
        }
        for store in stores { await store.close() }
    }

    /// Notifications, renewal info and app account tokens round-trip through the store: a retry is a no-op, a
    /// renewal signed earlier than the held one is not applied, and the reads return what was written.
    @Test(arguments: Kind.allCases)
    func subscriptionStateRoundTrips(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        var bought = Self.transaction("t1", original: "s", kind: .autoRenewable, expires: Self.time(1_000))
        bought.appAccountToken = "11111111-2222-4333-8444-555555555555"
        _ = try await ledger.record(Self.entry([bought], account: "alice"))
        func notification(_ id: String, signed: Int64, retry: Bool) -> LedgerEntry {
            var entry = Self.entry([], account: nil)
            entry.renewals = [
                LedgerRenewal(
                    originalTransactionID: "s", productID: "product.s", autoRenewProductID: "product.s",
                    autoRenewStatus: 1, isInBillingRetryPeriod: retry, gracePeriodExpiresDate: Self.time(5_000),
                    expirationIntent: 2, renewalDate: Self.time(4_000), offerType: 2, offerIdentifier: "spring",
                    environment: .sandbox, signedDate: Self.time(signed), updated: Self.time(signed))
            ]
            entry.notification = LedgerNotification(
                id: id, version: "2", notificationType: "DID_FAIL_TO_RENEW", signedDate: Self.time(signed),
                received: Self.time(signed), originalTransactionID: "s")
            return entry
        }
        let first = try await ledger.record(notification("n-20", signed: 2_000, retry: true))
        #expect(!first.isDuplicateNotification)
        #expect(try await ledger.record(notification("n-20", signed: 2_000, retry: true)).isDuplicateNotification)
        let stale = try await ledger.record(notification("n-10", signed: 1_000, retry: false))
        #expect(stale.staleRenewals == 1)
        let held = try await ledger.subscriptions(originalTransactionIDs: ["s", "unknown"])
        #expect(held.transactions.map(\.transactionID) == ["t1"])
        #expect(held.renewals.map(\.isInBillingRetryPeriod) == [true], "the later-signed state stays")
        let renewal = try #require(held.renewals.first)
        #expect(renewal.productID == "product.s" && renewal.autoRenewProductID == "product.s")
        #expect(renewal.autoRenewStatus == 1 && renewal.expirationIntent == 2)
        #expect(renewal.gracePeriodExpiresDate == Self.time(5_000) && renewal.renewalDate == Self.time(4_000))
        #expect(renewal.offerType == 2 && renewal.offerIdentifier == "spring")
        #expect(renewal.environment == .sandbox && renewal.signedDate == Self.time(2_000))
        #expect(try await store.renewals(ownedBy: "alice").map(\.signedDate) == [Self.time(2_000)])
        #expect(try await ledger.entitlements(account: "alice", at: Self.time(3_000)).first?.state == .gracePeriod)
        #expect(try await ledger.transaction(id: "t1")?.0.appAccountToken == bought.appAccountToken)
        await store.close()
    }

    /// An entry that asks for its subscriptions gets them back from its own commit, with what the batch wrote
    /// before it (a renewal, a new transaction) and only under the ids it named; an entry that asks for none
    /// gets none.
    @Test(arguments: Kind.allCases)
    func commitReadsSubscriptionsBack(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let first = Self.transaction("t1", original: "s", kind: .autoRenewable, expires: Self.time(1_000))
        let other = Self.transaction("u1", original: "u", kind: .autoRenewable, expires: Self.time(1_000))
        _ = try await store.commit([Self.entry([first, other], account: nil)])
        var renewed = Self.entry([], account: nil)
        renewed.renewals = [
            LedgerRenewal(
                originalTransactionID: "s", productID: "product.s", autoRenewProductID: "product.s",
                autoRenewStatus: 1, isInBillingRetryPeriod: false, gracePeriodExpiresDate: nil, expirationIntent: nil,
                renewalDate: nil, offerType: nil, offerIdentifier: nil, environment: .sandbox,
                signedDate: Self.time(2_000), updated: Self.time(2_000))
        ]
        let second = Self.transaction("t2", original: "s", kind: .autoRenewable, expires: Self.time(2_000))
        var reading = Self.entry([first, second], account: nil)
        reading.readsSubscriptions = ["s"]
        var elsewhere = Self.entry([], account: nil)
        elsewhere.readsSubscriptions = ["u", "missing"]
        let outcomes = try await store.commit([renewed, reading, Self.entry([other], account: nil), elsewhere])
        #expect(outcomes.count == 4)
        #expect(outcomes[0].subscriptions == nil && outcomes[2].subscriptions == nil)
        let mine = try #require(outcomes[1].subscriptions)
        #expect(mine.transactions.map(\.transactionID) == ["t1", "t2"], "the batch's own new transaction is seen")
        #expect(mine.renewals.map(\.signedDate) == [Self.time(2_000)], "the batch's own renewal is seen")
        #expect(outcomes[1].newTransactionIDs == ["t2"])
        let theirs = try #require(outcomes[3].subscriptions)
        #expect(theirs.transactions.map(\.transactionID) == ["u1"] && theirs.renewals.isEmpty)
        await store.close()
    }

    /// A subscription receipt seen again is answered from its key (its transaction is not touched) and still reads
    /// back its subscriptions as the ledger holds them now: a renewal and a transaction recorded since are in the
    /// answer.
    @Test(arguments: Kind.allCases)
    func aSubscriptionReceiptSeenAgainReadsBackWhatTheLedgerHoldsNow(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        let first = Self.transaction("t1", original: "s", kind: .autoRenewable, expires: Self.time(1_000))
        var receipt = Self.entry([first], account: nil)
        receipt.readsSubscriptions = ["s"]
        let recorded = try await ledger.record(receipt)
        #expect(recorded.newTransactionIDs == ["t1"])
        #expect(recorded.subscriptions?.transactions.map(\.transactionID) == ["t1"])
        var renewed = Self.entry(
            [Self.transaction("t2", original: "s", kind: .autoRenewable, expires: Self.time(2_000), at: Self.time(10))],
            account: nil, at: Self.time(10))
        renewed.receiptSHA256 = "later"
        renewed.renewals = [
            LedgerRenewal(
                originalTransactionID: "s", productID: "product.s", autoRenewProductID: "product.s",
                autoRenewStatus: 0, isInBillingRetryPeriod: false, gracePeriodExpiresDate: nil, expirationIntent: 1,
                renewalDate: nil, offerType: nil, offerIdentifier: nil, environment: .sandbox,
                signedDate: Self.time(10), updated: Self.time(10))
        ]
        _ = try await ledger.record(renewed)
        var seenAgain = receipt
        seenAgain.time = Self.time(20)
        let again = try await ledger.record(seenAgain)
        #expect(again.knownTransactionIDs == ["t1"] && again.newTransactionIDs.isEmpty)
        let held = try #require(again.subscriptions)
        #expect(held.transactions.map(\.transactionID) == ["t1", "t2"])
        #expect(held.renewals.map(\.autoRenewStatus) == [0])
        #expect(try await store.transaction(id: "t1")?.0.lastSeen == Self.time(0), "answered from the receipt's key")
        #expect(try await store.auditEntries(AuditQuery()).count == 3)
        await store.close()
    }

    /// A batch of receipts seen before is answered from their keys with one audit entry each; a batch where one
    /// receipt is new beside them (PostgreSQL first tries the batch as all known, and must then write nothing of
    /// that try) records the new one, answers the known ones, and still writes one audit entry per verification,
    /// in order.
    @Test(arguments: Kind.allCases)
    func aBatchOfKnownReceiptsWithANewOneAuditsEachOnce(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        func receipt(_ id: String, at step: Int64) -> LedgerEntry {
            var entry = Self.entry([Self.transaction(id)], account: "dana", at: Self.time(step))
            entry.receiptSHA256 = "sha-" + id
            entry.endpoint = "step \(step)"
            return entry
        }
        _ = try await store.commit([receipt("k1", at: 0), receipt("k2", at: 0)])
        let known = try await store.commit([receipt("k1", at: 1), receipt("k2", at: 1), receipt("k1", at: 1)])
        #expect(known.map(\.knownTransactionIDs) == [["k1"], ["k2"], ["k1"]])
        let mixed = try await store.commit([receipt("k2", at: 2), receipt("n1", at: 2), receipt("k1", at: 2)])
        #expect(mixed.map(\.knownTransactionIDs) == [["k2"], [], ["k1"]])
        #expect(mixed.map(\.newTransactionIDs) == [[], ["n1"], []])
        let audits = try await store.auditEntries(AuditQuery())
        #expect(
            audits.map(\.endpoint) == ["step 0", "step 0"] + Array(repeating: "step 1", count: 3)
                + Array(repeating: "step 2", count: 3))
        #expect(audits.suffix(3).map(\.newTransactionIDs) == [[], ["n1"], []])
        #expect(try await store.transaction(id: "n1") != nil)
        await store.close()
    }

    /// A receipt whose transactions are made from its bytes (the intake's receipts) has them made only until the
    /// ledger knows its key: a repeat sighting is answered from the key without making them, with the same ids, one
    /// audit entry each, and its transactions untouched. Another `Ledger` on the store (a second replica, or this
    /// one after a restart) knows nothing in memory: it makes them once, is answered from the key the store kept,
    /// and from then on makes nothing either. An entry sent with its key alone that the store does not know writes
    /// nothing at all and says so.
    @Test(arguments: Kind.allCases)
    func aReceiptTheLedgerKnowsIsAnsweredWithoutMakingItsTransactions(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        final class Counter: @unchecked Sendable { var made = 0 }
        let counter = Counter()
        let derive = { () -> [LedgerTransaction] in
            counter.made += 1
            return [Self.transaction("d1"), Self.transaction("d2", original: "d1"), Self.transaction("d1")]
        }
        var receipt = Self.entry([], account: "erin")
        receipt.receiptSHA256 = "sha-derived"
        let key = LedgerReceiptKey.key(receiptSHA256: "sha-derived", derivation: "test", account: "erin")
        let ledger = Ledger(store: store)
        let first = try await ledger.record(receipt, receiptKey: key, derive: derive)
        #expect(first.newTransactionIDs == ["d1", "d2"] && counter.made == 1)
        receipt.time = Self.time(5)
        let again = try await ledger.record(receipt, receiptKey: key, derive: derive)
        #expect(again == LedgerOutcome(knownTransactionIDs: ["d1", "d2"]))
        #expect(counter.made == 1, "answered from the key alone")
        let replica = Ledger(store: store)
        #expect(try await replica.record(receipt, receiptKey: key, derive: derive) == again)
        #expect(counter.made == 2, "a ledger that has not seen the key known makes the transactions once")
        #expect(try await replica.record(receipt, receiptKey: key, derive: derive) == again)
        #expect(counter.made == 2)
        #expect(try await store.transaction(id: "d1")?.0.lastSeen == Self.time(0), "answered from the key")
        var unknown = receipt
        unknown.preparedReceiptKey = .some("never-recorded")
        unknown.answersFromKeyOnly = true
        let refused = try await store.commit([unknown])
        #expect(refused.map(\.receiptKey.missing) == [true])
        #expect(try await store.auditEntries(AuditQuery()).count == 4, "nothing written for the entry sent alone")
        // A ledger that lost its keys (none does; a test can make one) is sent the sighting as its key alone, writes
        // nothing for it, and the verification is recorded in full: the same answer, one audit entry.
        switch kind {
        case .sqlite:
            let sqlite = try #require(store as? SQLiteLedgerStore)
            try await sqlite.pool.write { try $0.execute(sql: "DELETE FROM ledger_receipts") }
        case .postgres:
            try await place.database?.run("DELETE FROM ledger_receipts")
        }
        #expect(try await ledger.record(receipt, receiptKey: key, derive: derive) == again)
        #expect(counter.made == 3, "made again once the ledger did not know the key")
        #expect(try await store.auditEntries(AuditQuery()).count == 5)
        #expect(try await ledger.record(receipt, receiptKey: key, derive: derive) == again)
        #expect(counter.made == 3, "the key remembered again")
        await store.close()
    }

    /// SQLite syncs a commit when it changes what the ledger knows: a batch with a new transaction commits FULL
    /// (rolled back and rerun when the writer was at NORMAL, with one audit entry per verification all the same),
    /// a batch of repeats commits and leaves the writer at NORMAL; `syncEveryCommit` keeps FULL throughout.
    @Test(arguments: [false, true])
    func sqliteSyncsEveryCommitThatChangesFacts(syncEveryCommit: Bool) async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteLedgerStore(
            path: folder.url.appendingPathComponent("ledger.sqlite").path,
            options: LedgerStoreOptions(syncEveryCommit: syncEveryCommit))
        let ledger = Ledger(store: store)
        func level() async throws -> Int? {
            try await store.pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
        }
        let full = 2
        let normal = syncEveryCommit ? full : 1
        var reported: [String] = []
        for (step, (ids, expected)) in [
            (["1"], full), (["1"], normal), (["1"], normal), (["1", "2"], full), (["2"], normal),
        ]
        .enumerated() {
            let outcome = try await ledger.record(
                Self.entry(ids.map { Self.transaction($0) }, account: "a", at: Self.time(Int64(step))))
            reported += outcome.newTransactionIDs
            #expect(try await level() == expected, "after step \(step)")
        }
        #expect(reported == ["1", "2"])
        #expect(try await store.auditEntries(AuditQuery()).count == 5)
        await ledger.close()
    }

    /// On PostgreSQL a batch of repeat sightings (audit entries only, one statement) commits at the level the statement
    /// sets for its own transaction, `$4`: run inside a transaction, it leaves that level in force until the commit,
    /// which writes the batch's audit entry; the next transaction is at the session's level again. The store binds
    /// `off` unless every commit must sync, the promise SQLite's NORMAL commits make.
    @Test(
        .enabled(if: PostgresTestDatabase.clusterURL != nil, Comment(rawValue: PostgresTestDatabase.skipMessage)),
        arguments: ["off", "on"])
    func postgresRepeatSightingsCommitAtTheLevelTheirStatementSets(level: String) async throws {
        let place = try await Place(.postgres)
        let store = try await place.open()
        let database = try #require(place.database)
        try await database.run("INSERT INTO ledger_receipts (receipt_key, first_seen_ms) VALUES ('known-key', 0)")
        let entry = Self.entry([Self.transaction("77")], account: "alice")
        let audits = PostgresStatements.records(
            LedgerPlan.decide([entry], snapshot: LedgerSnapshot()).0.audits.map(AuditRecord.init), capacity: 300)
        let answer = try await database.run(
            "PREPARE repeats(text[], bigint, text, text) AS \(PostgresStatements.auditIfAllKnown); BEGIN; "
                + "CREATE TEMPORARY TABLE seen AS "
                + "EXECUTE repeats(ARRAY['known-key'], 1, '\(audits.replacingOccurrences(of: "'", with: "''"))', "
                + "'\(level)'); "
                + "CREATE TEMPORARY TABLE inside AS SELECT current_setting('synchronous_commit') AS level; COMMIT; "
                + "SELECT (SELECT string_agg(receipt_key || '=' || count, ',') FROM seen) || ' ' "
                + "|| (SELECT level FROM inside) || ' ' || current_setting('synchronous_commit') || ' ' "
                + "|| (SELECT count(*) FROM ledger_audit)")
        // The batch's entry, written at `level`; the next transaction is back at the session's own level.
        #expect(answer.trimmingCharacters(in: .whitespacesAndNewlines) == "known-key=1 \(level) on 1")
        #expect(PostgresLedgerStore.repeatsCommitLevel(syncEveryCommit: false) == "off")
        #expect(PostgresLedgerStore.repeatsCommitLevel(syncEveryCommit: true) == "on")
        await store.close()
    }

    /// An audit insert that fails (SQLite binds it with its own calls) fails its whole batch with
    /// `ledger.unavailable`: the batch's new transaction is not there, and the next batch reports it new.
    @Test func aFailingSQLiteAuditInsertRollsTheBatchBack() async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteLedgerStore(path: folder.url.appendingPathComponent("ledger.sqlite").path)
        try await store.pool.write { db in
            try db.execute(
                sql:
                    "CREATE TRIGGER refuse_audit BEFORE INSERT ON ledger_audit BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
        }
        let entry = Self.entry([Self.transaction("41")], account: "alice")
        await #expect(throws: LedgerError.self) { _ = try await store.commit([entry]) }
        #expect(try await store.transaction(id: "41") == nil)
        try await store.pool.write { try $0.execute(sql: "DROP TRIGGER refuse_audit") }
        #expect(try await store.commit([entry]).first?.newTransactionIDs == ["41"])
        #expect(try await store.auditEntries(AuditQuery()).count == 1)
        await store.close()
    }

    /// A writer that cannot get the lock within the deadline fails, and what it would have written is not there:
    /// the connection is closed, so PostgreSQL rolls the transaction back (a wait on a lock is not left running).
    @Test(.enabled(if: PostgresTestDatabase.clusterURL != nil, Comment(rawValue: PostgresTestDatabase.skipMessage)))
    func aPostgresCommitPastItsDeadlineLeavesNothing() async throws {
        let place = try await Place(.postgres)
        let location = try place.location
        guard case .postgres(let server) = location, let database = place.database else { return }
        // Migrated first under the default deadline (a busy machine can take seconds to set a schema up); the
        // short deadline is for the commit under test.
        await (try await place.open()).close()
        let store = try await PostgresLedgerStore(
            location: server, options: LedgerStoreOptions(deadline: .seconds(1)), logger: Self.logger)
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        holder.arguments = [
            database.url, "-X", "-q", "-c",
            // Long past any deadline, but bounded: a store that ignored its deadline would wait this long, then fail.
            "SELECT pg_advisory_lock(\(PostgresLedgerStore.writerLockKey)); SELECT pg_sleep(120);",
        ]
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice  // its "terminating connection" when the test ends its session
        try holder.run()
        defer { holder.terminate() }
        // Wait until the lock is held: this lock, in this database (pg_locks lists the whole cluster's, and other
        // tests' stores take the same key in theirs).
        let lock =
            "FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE "
            + "datname = current_database()) AND ((classid::bigint << 32) | objid::bigint) = "
            + "\(PostgresLedgerStore.writerLockKey)"
        while try await database.run("SELECT count(*) " + lock) == "0" {
            try #require(holder.isRunning, "psql exited before it held the lock")
            try await Task.sleep(for: .milliseconds(20))
        }
        await #expect(throws: LedgerError(.unavailable, "")) {
            try await Ledger(store: store).record(Self.entry([Self.transaction("late")], account: "alice"))
        }
        // The lock is held until the test frees it (no clock decides that), so an answer while it is still held
        // is the deadline's, however slow the machine.
        #expect(try await database.run("SELECT count(*) " + lock) == "1", "gave up at the deadline, not at a release")
        _ = try await database.run("SELECT count(pg_terminate_backend(pid)) " + lock)
        // Polled, not `waitUntilExit()`: that would hold one of the test runner's few threads for seconds.
        while holder.isRunning { try await Task.sleep(for: .milliseconds(50)) }
        await store.close()
        // Read back under the default deadline: only the commit above is about the short one.
        let reader = try await place.open()
        #expect(try await reader.transaction(id: "late") == nil)
        #expect(try await reader.auditEntries(AuditQuery()).isEmpty)
        await reader.close()
    }

    /// A role that may only read and write the ledger's rows (no right to create tables, PostgreSQL 15's default on
    /// `public`) runs a migrated ledger: the start finds the schema current without any DDL.
    @Test(.enabled(if: PostgresTestDatabase.clusterURL != nil, Comment(rawValue: PostgresTestDatabase.skipMessage)))
    func aLeastPrivilegeRoleRunsAMigratedLedger() async throws {
        let place = try await Place(.postgres)
        guard let database = place.database else { return }
        await (try await place.open()).close()
        let role = "ledger_app_\(UInt32.random(in: 0...UInt32.max))"
        try await database.run(
            "CREATE ROLE \(role) LOGIN; GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO \(role); "
                + "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO \(role)")
        let url = database.url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(role)@")
        let store = try #require(try await Ledger.openStore(LedgerLocation(parsing: url), logger: Self.logger))
        let outcome = try await Ledger(store: store).record(Self.entry([Self.transaction("1")], account: "alice"))
        #expect(outcome.newTransactionIDs == ["1"])
        await #expect(throws: (any Error).self) { try await database.run("SET ROLE \(role); DELETE FROM ledger_audit") }
        await store.close()
        // The role is the cluster's, not the database's: it goes once it holds no rights (after a failure the
        // cluster itself goes at the end of scripts/test).
        _ = try? await database.run("DROP OWNED BY \(role); DROP ROLE \(role)")
    }

    /// Entitlements come from what the ledger holds for the account's purchases.
    @Test(arguments: Kind.allCases)
    func entitlementsFollowTheOwnersTransactions(kind: Kind) async throws {
        guard Self.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        let receipt = [
            Self.transaction("sub1", original: "sub", kind: .autoRenewable, expires: Self.time(1000)),
            Self.transaction("sub2", original: "sub", kind: .autoRenewable, expires: Self.time(2000)),
            Self.transaction("coins", kind: .consumable),
            Self.transaction("pro", kind: .nonConsumable),
        ]
        _ = try await ledger.record(Self.entry(receipt, account: "alice"))
        let early = try await ledger.entitlements(account: "alice", at: Self.time(1500))
        #expect(early.map(\.originalTransactionID) == ["pro", "sub"])
        #expect(early.map(\.state) == [.active, .active])
        #expect(early.last?.expiresDate == Self.time(2000))
        let late = try await ledger.entitlements(account: "alice", at: Self.time(2500))
        #expect(late.map(\.state) == [.active, .expired])
        #expect(try await ledger.entitlements(account: "bob", at: Self.time(0)).isEmpty)
        await store.close()
    }
}
