import Foundation
import GRDB
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

@testable import ReceiptLedger
@testable import ReceiptLedgerStores

/// The outbox (issue 27), against both stores: events written in the transaction of the facts that cause them, and
/// leased, settled, listed and queued again as the deliverers use them.
@Suite struct LedgerEventTests {
    typealias Kind = LedgerStoreTests.Kind
    typealias Place = LedgerStoreTests.Place

    static let recording = LedgerStoreOptions(recordsEvents: true)

    static func time(_ offset: Int64) -> ReceiptDate { LedgerStoreTests.time(offset) }

    /// A fresh ledger of `kind` that records events, and its store; `nil` when `kind` is not available here.
    struct Opened {
        let place: Place
        let store: any LedgerStore
        let ledger: Ledger

        /// Closes the store (and, by keeping `place` alive until then, its database).
        func close() async {
            await store.close()
            withExtendedLifetime(place) {}
        }
    }

    static func openRecording(_ kind: Kind) async throws -> Opened? {
        guard LedgerStoreTests.available(kind) else { return nil }
        let place = try await Place(kind)
        let store = try await place.open(recording)
        return Opened(place: place, store: store, ledger: Ledger(store: store))
    }

    /// The event's body as a JSON object.
    static func body(_ event: LedgerEvent) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(event.body)) as? [String: Any])
    }

    /// Each event's type and key, in commit order.
    static func summary(_ events: [LedgerEvent]) -> [String] {
        events.map { "\($0.kind.rawValue) \($0.key)" }
    }

    @Test(arguments: Kind.allCases)
    func aNewPurchaseWritesPurchaseNewAndItsFirstEntitlement(kind: Kind) async throws {
        guard let opened = try await Self.openRecording(kind) else { return }
        let (store, ledger) = (opened.store, opened.ledger)
        let purchase = LedgerStoreTests.transaction(
            "t1", original: "o1", kind: .autoRenewable, expires: Self.time(60_000))
        _ = try await ledger.record(LedgerStoreTests.entry([purchase], account: "alice", at: Self.time(123)))
        let events = try await store.events(LedgerEventQuery())
        #expect(Self.summary(events) == ["purchase.new account:alice", "entitlement.changed account:alice"])
        #expect(events.map(\.sequence) == events.map(\.sequence).sorted() && Set(events.map(\.sequence)).count == 2)
        #expect(events.allSatisfy { $0.state == .pending && $0.attempts == 0 && $0.createdAt == Self.time(123) })
        #expect(events.allSatisfy { $0.id.hasPrefix("evt_") && $0.id.utf8.count == 36 })

        let new = try Self.body(try #require(events.first))
        #expect(new["id"] as? String == events.first?.id)
        #expect(new["type"] as? String == "purchase.new")
        #expect(new["created_at"] as? String == "2023-11-14T22:13:20.123Z")
        #expect(new["environment"] as? String == "Sandbox")
        #expect(new["bundle_id"] as? String == "org.example")
        #expect(new["account"] as? String == "alice")
        #expect(new["original_transaction_id"] as? String == "o1")
        #expect(new["transaction_id"] as? String == "t1")
        #expect(new["product_id"] as? String == "product.o1")
        #expect(new["kind"] as? String == "auto_renewable")
        #expect((new["purchase_date_ms"] as? NSNumber)?.int64Value == Self.time(-1000).millisecondsSince1970)
        #expect((new["expires_date_ms"] as? NSNumber)?.int64Value == Self.time(60_000).millisecondsSince1970)
        #expect(new["source"] as? String == "receipt")

        let entitlement = try Self.body(events[1])
        #expect(entitlement["type"] as? String == "entitlement.changed")
        #expect(entitlement["previous_state"] is NSNull)
        #expect(entitlement["state"] as? String == "active")
        #expect((entitlement["expires_date_ms"] as? NSNumber)?.int64Value == Self.time(60_000).millisecondsSince1970)
        #expect(entitlement["transaction_id"] as? String == "t1")

        // Seen again, later: nothing new, and time passing alone changes no entitlement.
        _ = try await ledger.record(LedgerStoreTests.entry([purchase], account: "alice", at: Self.time(90_000)))
        #expect(try await store.events(LedgerEventQuery()).count == 2)
        await opened.close()
    }

    @Test(arguments: Kind.allCases)
    func anUnboundPurchaseIsKeyedByItsOriginalTransactionAndHasNoAccount(kind: Kind) async throws {
        guard let opened = try await Self.openRecording(kind) else { return }
        let (store, ledger) = (opened.store, opened.ledger)
        let consumable = LedgerStoreTests.transaction("c1", kind: .consumable)
        _ = try await ledger.record(LedgerStoreTests.entry([consumable], account: nil))
        let events = try await store.events(LedgerEventQuery())
        // A consumable grants no entitlement.
        #expect(Self.summary(events) == ["purchase.new original:c1"])
        #expect(try Self.body(try #require(events.first))["account"] is NSNull)
        #expect(try Self.body(try #require(events.first))["expires_date_ms"] is NSNull)
        await opened.close()
    }

    @Test(arguments: Kind.allCases)
    func aRefundSignedLaterWritesRefundedAndRevoked(kind: Kind) async throws {
        guard let opened = try await Self.openRecording(kind) else { return }
        let (store, ledger) = (opened.store, opened.ledger)
        _ = try await ledger.record(LedgerStoreTests.entry([LedgerStoreTests.transaction("t1")], account: "alice"))
        var refunded = LedgerStoreTests.transaction("t1", cancelled: Self.time(4_000), at: Self.time(5_000))
        refunded.source = .storeKit
        refunded.signedDate = Self.time(5_000)
        _ = try await ledger.record(LedgerStoreTests.entry([refunded], account: "alice", at: Self.time(5_000)))
        let events = try await store.events(LedgerEventQuery())
        #expect(
            Self.summary(events) == [
                "purchase.new account:alice", "entitlement.changed account:alice", "purchase.refunded account:alice",
                "entitlement.changed account:alice",
            ])
        let refund = try Self.body(events[2])
        #expect((refund["revocation_date_ms"] as? NSNumber)?.int64Value == Self.time(4_000).millisecondsSince1970)
        #expect(refund["revocation_reason"] is NSNull)
        let revoked = try Self.body(events[3])
        #expect(revoked["previous_state"] as? String == "active")
        #expect(revoked["state"] as? String == "revoked")

        // A later statement without the refund lifts it.
        var reversed = refunded
        reversed.cancellationDate = nil
        reversed.signedDate = Self.time(6_000)
        _ = try await ledger.record(LedgerStoreTests.entry([reversed], account: "alice", at: Self.time(6_000)))
        let after = try await store.events(LedgerEventQuery())
        #expect(
            Self.summary(Array(after.dropFirst(4))) == [
                "purchase.refund_reversed account:alice", "entitlement.changed account:alice",
            ])
        await opened.close()
    }

    @Test(arguments: [ConflictPolicy.report, .reject], Kind.allCases)
    func aConflictWritesOwnershipConflict(policy: ConflictPolicy, kind: Kind) async throws {
        guard let opened = try await Self.openRecording(kind) else { return }
        let (store, ledger) = (opened.store, opened.ledger)
        let purchase = LedgerStoreTests.transaction("t1", original: "o1")
        _ = try await ledger.record(LedgerStoreTests.entry([purchase], account: "alice"))
        let outcome = try await ledger.record(
            LedgerStoreTests.entry([purchase], account: "bob", onConflict: policy, at: Self.time(10)))
        #expect(outcome.conflicts.count == 1)
        let events = try await store.events(LedgerEventQuery(since: Self.time(10)))
        #expect(Self.summary(events) == ["ownership.conflict account:alice"])
        let conflict = try Self.body(try #require(events.first))
        #expect(conflict["account"] as? String == "bob")
        #expect(conflict["owner_account"] as? String == "alice")
        #expect(conflict["original_transaction_id"] as? String == "o1")
        #expect(conflict["transaction_ids"] as? [String] == ["t1"])
        await opened.close()
    }

    @Test(arguments: Kind.allCases)
    func withoutRecordingEventsNoneAreWritten(kind: Kind) async throws {
        guard LedgerStoreTests.available(kind) else { return }
        let place = try await Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        _ = try await ledger.record(LedgerStoreTests.entry([LedgerStoreTests.transaction("t1")], account: "alice"))
        _ = try await ledger.record(LedgerStoreTests.entry([LedgerStoreTests.transaction("t1")], account: "bob"))
        #expect(try await store.events(LedgerEventQuery()).isEmpty)
        #expect(try await store.pendingEvents().count == 0)
        await store.close()
    }

    /// A refused entry and a batch the store fails write no event, and the facts of neither are recorded.
    @Test(arguments: Kind.allCases)
    func aFailedBatchWritesNoEvents(kind: Kind) async throws {
        guard let opened = try await Self.openRecording(kind) else { return }
        let (store, ledger) = (opened.store, opened.ledger)
        await #expect(throws: LedgerError(.invalidEntry, "")) {
            try await ledger.record(LedgerStoreTests.entry([LedgerStoreTests.transaction("bad id")], account: "a"))
        }
        // The audit trail refuses the batch's last write: its transactions and events were written before it.
        switch kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: try NotificationBackfillTests.sqlitePath(opened.place))
            try await queue.write { db in
                try db.execute(
                    sql: "CREATE TRIGGER boom BEFORE INSERT ON ledger_audit WHEN NEW.endpoint = '/boom' "
                        + "BEGIN SELECT RAISE(ABORT, 'boom'); END")
            }
            try queue.close()
        case .postgres:
            try await #require(opened.place.database).run(
                "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.endpoint = '/boom' THEN "
                    + "RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$; CREATE TRIGGER boom BEFORE INSERT ON "
                    + "ledger_audit FOR EACH ROW EXECUTE FUNCTION boom()")
        }
        var entry = LedgerStoreTests.entry([LedgerStoreTests.transaction("t1")], account: "alice")
        entry.endpoint = "/boom"
        await #expect(throws: LedgerError(.unavailable, "")) { try await store.commit([entry]) }
        #expect(try await store.events(LedgerEventQuery()).isEmpty)
        #expect(try await store.transaction(id: "t1") == nil)
        await opened.close()
    }

    /// Two purchases of alice (one key) and one of bob: each key's events go out one at a time, in commit order.
    @Test(arguments: Kind.allCases)
    func eachKeyIsClaimedInOrderOneAtATime(kind: Kind) async throws {
        guard let opened = try await Self.openRecording(kind) else { return }
        let (store, ledger) = (opened.store, opened.ledger)
        _ = try await ledger.record(LedgerStoreTests.entry([LedgerStoreTests.transaction("a1")], account: "alice"))
        _ = try await ledger.record(LedgerStoreTests.entry([LedgerStoreTests.transaction("b1")], account: "bob"))
        let all = try await store.events(LedgerEventQuery())
        #expect(Self.summary(all).filter { $0.hasSuffix("alice") }.count == 2)
        let (alice1, alice2, bob1, bob2) = (all[0], all[1], all[2], all[3])
        let now = Self.time(10)
        let lease = Self.time(10_000)

        let first = try await store.claimEvents(owner: "A", now: now, leaseUntil: lease, limit: 10)
        #expect(first.map(\.id) == [alice1.id, bob1.id], "only each key's first")
        #expect(try await store.claimEvents(owner: "B", now: now, leaseUntil: lease, limit: 10).isEmpty)

        // B holds no lease on alice1: its settlement is ignored.
        try await store.settleEvent(id: alice1.id, owner: "B", .delivered(at: now))
        #expect(try await store.events(LedgerEventQuery()).first?.state == .pending)
        try await store.settleEvent(id: alice1.id, owner: "A", .delivered(at: now))
        #expect(
            try await store.claimEvents(owner: "B", now: now, leaseUntil: lease, limit: 10).map(\.id) == [alice2.id])

        // A parked event does not hold its key back.
        try await store.settleEvent(id: bob1.id, owner: "A", .failed(at: now, error: "HTTP 500\n"))
        #expect(try await store.claimEvents(owner: "B", now: now, leaseUntil: lease, limit: 10).map(\.id) == [bob2.id])

        // Leases that ran out are another owner's to take; the old owner's settlement is then ignored.
        let later = Self.time(20_000)
        let taken = try await store.claimEvents(owner: "C", now: later, leaseUntil: Self.time(30_000), limit: 10)
        #expect(taken.map(\.id) == [alice2.id, bob2.id])
        try await store.settleEvent(id: alice2.id, owner: "B", .delivered(at: later))
        try await store.settleEvent(id: alice2.id, owner: "C", .retry(at: Self.time(40_000), error: "timeout"))
        let retried = try #require(try await store.events(LedgerEventQuery()).first { $0.id == alice2.id })
        #expect(retried.state == .pending && retried.attempts == 1 && retried.lastError == "timeout")
        #expect(retried.nextAttemptAt == Self.time(40_000))
        // Not due yet: held back until then (bob's, whose lease ran out, is D's), then claimable (its lease was
        // released).
        let longLease = Self.time(100_000)
        #expect(
            try await store.claimEvents(owner: "D", now: Self.time(35_000), leaseUntil: longLease, limit: 10)
                .map(\.id) == [bob2.id])
        #expect(
            try await store.claimEvents(owner: "D", now: Self.time(40_000), leaseUntil: longLease, limit: 10)
                .map(\.id) == [alice2.id])

        // Listing, the metric, and replay.
        let failed = try await store.events(LedgerEventQuery(onlyFailed: true))
        #expect(failed.map(\.id) == [bob1.id])
        #expect(failed.first?.lastError == "HTTP 500 " && failed.first?.attempts == 1)
        #expect(try await store.events(LedgerEventQuery(limit: 1)).map(\.id) == [alice1.id])
        let pending = try await store.pendingEvents()
        #expect(pending.count == 2 && pending.oldest == Self.time(0))
        #expect(try await store.requeueEvents(ids: nil, now: Self.time(60_000)) == 1)
        let replayed = try #require(try await store.events(LedgerEventQuery()).first { $0.id == bob1.id })
        #expect(replayed.state == .pending && replayed.maxAgeFrom == Self.time(60_000))
        #expect(try await store.requeueEvents(ids: [alice1.id, "evt_unknown"], now: Self.time(60_000)) == 1)
        #expect(try await store.pendingEvents().count == 4)
        await opened.close()
    }

    /// A retry in backoff holds its key's later events back: they become due no earlier than it (settled then, or
    /// recorded while it waits), so the claim's due-order scan does not walk them; a stale owner's retry moves none.
    @Test(arguments: Kind.allCases)
    func aRetryMakesItsKeysLaterEventsDueNoEarlierThanIt(kind: Kind) async throws {
        guard let opened = try await Self.openRecording(kind) else { return }
        let (store, ledger) = (opened.store, opened.ledger)
        _ = try await ledger.record(LedgerStoreTests.entry([LedgerStoreTests.transaction("a1")], account: "alice"))
        let recorded = try await store.events(LedgerEventQuery())
        try #require(recorded.count == 2)
        let (head, next) = (recorded[0], recorded[1])
        let lease = Self.time(10_000)
        #expect(try await store.claimEvents(owner: "A", now: Self.time(10), leaseUntil: lease, limit: 10) == [head])

        // Another owner's retry is ignored and moves nothing.
        try await store.settleEvent(id: head.id, owner: "B", .retry(at: Self.time(90_000), error: "HTTP 503"))
        #expect(try await store.events(LedgerEventQuery()).last?.nextAttemptAt == next.nextAttemptAt)
        try await store.settleEvent(id: head.id, owner: "A", .retry(at: Self.time(40_000), error: "HTTP 503"))
        #expect(
            try await store.events(LedgerEventQuery()).map(\.nextAttemptAt) == [Self.time(40_000), Self.time(40_000)])

        // Recorded while the head waits: due with it, not before.
        _ = try await ledger.record(
            LedgerStoreTests.entry([LedgerStoreTests.transaction("a2")], account: "alice", at: Self.time(20)))
        let all = try await store.events(LedgerEventQuery())
        #expect(all.count == 4)
        #expect(all.allSatisfy { $0.nextAttemptAt == Self.time(40_000) })
        // Another key's events are untouched.
        _ = try await ledger.record(
            LedgerStoreTests.entry([LedgerStoreTests.transaction("b1")], account: "bob", at: Self.time(30)))
        let bob = try await store.events(LedgerEventQuery()).filter { $0.key == "account:bob" }
        #expect(bob.map(\.nextAttemptAt) == [Self.time(30), Self.time(30)])

        let later = Self.time(100_000)
        #expect(
            try await store.claimEvents(owner: "C", now: Self.time(35_000), leaseUntil: later, limit: 10).map(\.key)
                == ["account:bob"])
        #expect(
            try await store.claimEvents(owner: "C", now: Self.time(40_000), leaseUntil: later, limit: 10).map(\.id)
                == [head.id])
        try await store.settleEvent(id: head.id, owner: "C", .delivered(at: Self.time(40_001)))
        #expect(
            try await store.claimEvents(owner: "C", now: Self.time(40_001), leaseUntil: later, limit: 10).map(\.id)
                == [next.id])
        await opened.close()
    }

    /// Two stores on one ledger (two replicas, or two deliverers of one process) claiming at once never lease the
    /// same event, nor two events of one key.
    @Test(arguments: Kind.allCases)
    func concurrentClaimsNeverShareAnEvent(kind: Kind) async throws {
        guard LedgerStoreTests.available(kind) else { return }
        let place = try await Place(kind)
        let stores = [try await place.open(Self.recording), try await place.open(Self.recording)]
        let ledger = Ledger(store: stores[0])
        for index in 0..<30 {
            _ = try await ledger.record(
                LedgerStoreTests.entry([LedgerStoreTests.transaction("t\(index)")], account: "account-\(index)"))
        }
        let claims = try await withThrowingTaskGroup(of: [LedgerEvent].self) { group in
            for round in 0..<20 {
                let store = stores[round % 2]
                group.addTask {
                    try await store.claimEvents(
                        owner: "owner-\(round % 2)", now: Self.time(10), leaseUntil: Self.time(60_000), limit: 4)
                }
            }
            var all: [LedgerEvent] = []
            for try await claimed in group { all += claimed }
            return all
        }
        // What the racing claims left (a claim that skipped rows another had locked may have returned fewer).
        let rest = try await stores[0].claimEvents(
            owner: "sweeper", now: Self.time(10), leaseUntil: Self.time(60_000), limit: 100)
        #expect(claims.count + rest.count == 30, "every key's head, once")
        let leased = claims + rest
        #expect(Set(leased.map(\.id)).count == leased.count)
        #expect(Set(leased.map(\.key)).count == leased.count)
        #expect(leased.allSatisfy { $0.kind == .purchaseNew })
        for store in stores { await store.close() }
    }

    @Test func aLeaseOwnerOutsideTheLimitsIsRefused() async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteLedgerStore(
            path: folder.url.appendingPathComponent("ledger.sqlite").path, options: Self.recording)
        for owner in ["", "a\u{0}", String(repeating: "a", count: 257)] {
            await #expect(throws: LedgerError(.invalidEntry, "")) {
                try await store.claimEvents(owner: owner, now: Self.time(0), leaseUntil: Self.time(1), limit: 1)
            }
        }
        await store.close()
    }

    /// Renewal info alone (Apple retrying an expired subscription's payment) changes an entitlement; the same
    /// decision without events on writes none, and the keys then read no whole groups.
    @Test func aRenewalStateAloneChangesAnEntitlement() throws {
        let expired = LedgerStoreTests.transaction(
            "t1", original: "o1", kind: .autoRenewable, expires: Self.time(1_000))
        let snapshot = LedgerSnapshot(transactions: ["t1": expired])
        var entry = LedgerStoreTests.entry([], account: nil, at: Self.time(5_000))
        entry.renewals = [
            LedgerRenewal(
                originalTransactionID: "o1", isInBillingRetryPeriod: true, environment: .sandbox,
                signedDate: Self.time(4_000), updated: Self.time(5_000))
        ]
        #expect(LedgerPlan.keys(of: [entry], recordsEvents: true).subscriptionIDs == ["o1"])
        #expect(LedgerPlan.keys(of: [entry]).subscriptionIDs.isEmpty)
        let (changes, _) = LedgerPlan.decide([entry], snapshot: snapshot, recordsEvents: true)
        #expect(Self.summary(changes.events) == ["entitlement.changed original:o1"])
        let body = try Self.body(try #require(changes.events.first))
        #expect(body["previous_state"] as? String == "expired")
        #expect(body["state"] as? String == "billing_retry")
        #expect(body["transaction_id"] is NSNull && body["account"] is NSNull)
        #expect(LedgerPlan.decide([entry], snapshot: snapshot).0.events.isEmpty)
    }

    /// A subscription through its renewal states, each recorded on its own (as notifications and StoreKit 2 renewal
    /// info arrive): lapsed while Apple retries the payment (grace period), the grace period over (billing retry),
    /// Apple giving up (expired), then renewed. Each change is one `entitlement.changed`; the previous state is the
    /// entitlement at the change's own instant, so the first one is from `expired` (it lapsed by time alone, which
    /// writes nothing). Renewal info that changes no state writes no event.
    @Test(arguments: Kind.allCases)
    func renewalStatesMoveAnEntitlementThroughGracePeriodAndBillingRetry(kind: Kind) async throws {
        guard let opened = try await Self.openRecording(kind) else { return }
        let (store, ledger) = (opened.store, opened.ledger)
        let subscription = LedgerStoreTests.transaction(
            "t1", original: "o1", kind: .autoRenewable, expires: Self.time(10_000))
        _ = try await ledger.record(LedgerStoreTests.entry([subscription], account: "alice"))
        #expect(try await Self.states(store) == ["nil active"])

        // Lapsed, Apple retrying, within the grace period.
        let grace = Self.renewal(retrying: true, graceEnds: Self.time(50_000), signed: Self.time(19_000))
        _ = try await ledger.record(Self.entry(renewals: [grace], at: Self.time(20_000)))
        #expect(try await Self.states(store) == ["nil active", "expired grace_period"])
        // The same renewal info again, and the same state signed later: no change, no event.
        _ = try await ledger.record(Self.entry(renewals: [grace], at: Self.time(21_000)))
        var resigned = grace
        resigned.signedDate = Self.time(21_500)
        _ = try await ledger.record(Self.entry(renewals: [resigned], at: Self.time(22_000)))
        #expect(try await Self.states(store).count == 2)

        // The grace period cut short: still retrying, no longer entitled.
        let retry = Self.renewal(retrying: true, graceEnds: nil, signed: Self.time(29_000))
        _ = try await ledger.record(Self.entry(renewals: [retry], at: Self.time(30_000)))
        var retryAgain = retry
        retryAgain.signedDate = Self.time(31_000)
        _ = try await ledger.record(Self.entry(renewals: [retryAgain], at: Self.time(32_000)))
        // Apple gives up.
        let stopped = Self.renewal(retrying: false, graceEnds: nil, signed: Self.time(39_000))
        _ = try await ledger.record(Self.entry(renewals: [stopped], at: Self.time(40_000)))
        // Renewed after all: a new transaction of the subscription.
        let renewed = LedgerStoreTests.transaction(
            "t2", original: "o1", kind: .autoRenewable, expires: Self.time(100_000), at: Self.time(45_000))
        _ = try await ledger.record(LedgerStoreTests.entry([renewed], account: "alice", at: Self.time(45_000)))
        #expect(
            try await Self.states(store) == [
                "nil active", "expired grace_period", "grace_period billing_retry", "billing_retry expired",
                "expired active",
            ])

        let changes = try await store.events(LedgerEventQuery()).filter { $0.kind == .entitlementChanged }
        #expect(changes.allSatisfy { $0.key == "account:alice" })
        #expect(changes.map(\.createdAt) == [0, 20_000, 30_000, 40_000, 45_000].map(Self.time))
        for (index, change) in changes.enumerated() {
            let body = try Self.body(change)
            #expect(body["id"] as? String == change.id)
            #expect(body["account"] as? String == "alice")
            #expect(body["original_transaction_id"] as? String == "o1")
            // Only a transaction of the verification names one; renewal info alone names none.
            let expected: String? = index == 0 ? "t1" : index == 4 ? "t2" : nil
            #expect(body["transaction_id"] as? String == expected, "event \(index)")
            let expires = index == 4 ? Self.time(100_000) : Self.time(10_000)
            #expect((body["expires_date_ms"] as? NSNumber)?.int64Value == expires.millisecondsSince1970)
        }
        await opened.close()
    }

    /// Renewal info for the subscription `o1`.
    static func renewal(retrying: Bool, graceEnds: ReceiptDate?, signed: ReceiptDate) -> LedgerRenewal {
        LedgerRenewal(
            originalTransactionID: "o1", productID: "product.o1", autoRenewStatus: retrying ? 1 : 0,
            isInBillingRetryPeriod: retrying, gracePeriodExpiresDate: graceEnds, environment: .sandbox,
            signedDate: signed, updated: signed)
    }

    /// A verification that carries only renewal info (a notification's, or a StoreKit 2 renewal info's).
    static func entry(renewals: [LedgerRenewal], at time: ReceiptDate) -> LedgerEntry {
        var entry = LedgerStoreTests.entry([], account: nil, at: time)
        entry.renewals = renewals
        return entry
    }

    /// Each `entitlement.changed` event's `previous_state` and `state` ("nil" for null), in commit order.
    static func states(_ store: any LedgerStore) async throws -> [String] {
        try await store.events(LedgerEventQuery()).filter { $0.kind == .entitlementChanged }.map { event in
            let body = try Self.body(event)
            return "\(body["previous_state"] as? String ?? "nil") \(body["state"] as? String ?? "?")"
        }
    }

    /// Ids sort in creation order (the unique index grows at its end) and stay distinct and random within a
    /// millisecond.
    @Test func idsSortInCreationOrderAndDifferWithinAMillisecond() {
        let times = [Self.time(0), Self.time(1), Self.time(1_000), Self.time(86_400_000)]
        let ids = times.map { LedgerEvent.newID(at: $0) }
        #expect(ids == ids.sorted())
        #expect(ids.allSatisfy { $0.hasPrefix("evt_") && $0.utf8.count == 36 })
        #expect(ids[0].dropFirst(4).prefix(12) == String(1_700_000_000_000, radix: 16).leftPadded(to: 12))
        let same = (0..<64).map { _ in LedgerEvent.newID(at: Self.time(5)) }
        #expect(Set(same).count == 64)
        #expect(Set(same.map { $0.suffix(16) }).count == 64, "the low 64 bits are random")
        // Before 1970 clamps to 0 rather than trapping.
        #expect(LedgerEvent.newID(at: ReceiptDate(clampingMillisecondsSince1970: -5)).hasPrefix("evt_000000000000"))
    }

    @Test func timestampsAlwaysHaveMilliseconds() {
        #expect(LedgerEventComposer.timestamp(Self.time(0)) == "2023-11-14T22:13:20.000Z")
        #expect(LedgerEventComposer.timestamp(Self.time(7)) == "2023-11-14T22:13:20.007Z")
    }

    @Test func anEventErrorIsCutAndCleaned() {
        #expect(LedgerLimits.eventError("a\u{0}b\nc") == "a b c")
        let long = LedgerLimits.eventError(String(repeating: "é", count: 1000))
        #expect(long.utf8.count <= LedgerLimits.maximumEventErrorLength && long.utf8.count == 1024)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
