import ReceiptModel
import ReceiptVerification
import Testing

@testable import ReceiptLedger

/// The decision procedure every store shares, on its own: which ids are new, which conflict, what is written.
@Suite struct LedgerPlanTests {
    static let t0 = ReceiptDate(clampingMillisecondsSince1970: 1_700_000_000_000)

    static func transaction(_ id: String, original: String? = nil, at time: ReceiptDate = t0) -> LedgerTransaction {
        LedgerTransaction(
            transactionID: id, originalTransactionID: original ?? id, productID: "p", kind: .nonConsumable,
            bundleID: "b", environment: .sandbox, source: .receipt, firstSeen: time, lastSeen: time)
    }

    static func entry(
        _ transactions: [LedgerTransaction], account: String? = nil, verdict: Verdict.Outcome = .valid,
        onConflict: ConflictPolicy = .report
    ) -> LedgerEntry {
        LedgerEntry(
            time: t0, endpoint: "/v1/verify", receiptSHA256: "00", verdict: verdict, reason: nil, decidedBy: .local,
            account: account, transactions: transactions, onConflict: onConflict)
    }

    /// Duplicate ids are dropped wherever they are, the first of each kept, in order; without any, nothing changes.
    @Test(arguments: [
        ([String](), [String]()), (["a", "b", "c"], ["a", "b", "c"]), (["a", "a"], ["a"]),
        (["a", "b", "a", "c", "b", "d"], ["a", "b", "c", "d"]), (["a", "b", "c", "c"], ["a", "b", "c"]),
    ])
    func uniqueKeepsTheFirstOfEachID(ids: [String], expected: [String]) {
        let transactions = ids.enumerated().map { index, id in
            Self.transaction(id, original: "o\(index)")
        }
        let unique = LedgerPlan.unique(transactions)
        #expect(unique.map(\.transactionID) == expected)
        // The first of each id: its original transaction id names its position.
        let firsts = expected.map { id in "o\(ids.firstIndex(of: id) ?? -1)" }
        #expect(unique.map(\.originalTransactionID) == firsts)
    }

    /// A store looks up each receipt key of a batch once: the keys without duplicates or gaps, sorted, however
    /// many verifications bring the same receipt.
    @Test func distinctKeysAreLookedUpOnce() {
        #expect(LedgerPlan.distinctKeys([]).isEmpty)
        #expect(LedgerPlan.distinctKeys([nil, nil]).isEmpty)
        #expect(LedgerPlan.distinctKeys(["k2", nil, "k1", "k2", "k2", nil, "k1"]) == ["k1", "k2"])
        #expect(LedgerPlan.distinctKeys(Array(repeating: "k", count: 256)) == ["k"])
    }

    @Test func aBatchIsTheSameAsItsEntriesOneAfterAnother() {
        let a = Self.entry([Self.transaction("1"), Self.transaction("2")], account: "alice")
        let b = Self.entry([Self.transaction("2"), Self.transaction("3")], account: "bob")
        let (changes, outcomes) = LedgerPlan.decide([a, b], snapshot: LedgerSnapshot())
        #expect(outcomes[0].newTransactionIDs == ["1", "2"])
        #expect(outcomes[1].newTransactionIDs == ["3"])
        #expect(outcomes[1].knownTransactionIDs == ["2"])
        #expect(
            outcomes[1].conflicts == [LedgerConflict(originalTransactionID: "2", owner: "alice", transactionIDs: ["2"])]
        )
        #expect(changes.inserts.map(\.transactionID) == ["1", "2", "3"])
        #expect(changes.bindings.map(\.account) == ["alice", "alice", "bob"])
        #expect(changes.audits.count == 2)
    }

    /// A batch's keys ask only for what its plan uses: owners for verifications naming an account, renewal states
    /// for entries carrying them and for the subscriptions entries read back; nothing of an invalid verification.
    @Test func keysAskOnlyForWhatThePlanUses() {
        var renewing = Self.entry([Self.transaction("4", original: "o4")])
        renewing.renewals = [
            LedgerRenewal(originalTransactionID: "o5", environment: .sandbox, signedDate: Self.t0, updated: Self.t0)
        ]
        var reading = Self.entry([Self.transaction("3", original: "o3")])
        reading.readsSubscriptions = ["o6"]
        let keys = LedgerPlan.keys(of: [
            Self.entry([Self.transaction("1", original: "o1")]),
            Self.entry([Self.transaction("2", original: "o2")], account: "alice"), renewing, reading,
            Self.entry([Self.transaction("9", original: "o9")], account: "bob", verdict: .invalid),
        ])
        #expect(keys.transactionIDs == ["1", "2", "3", "4"])
        #expect(keys.ownerIDs == ["o2"])
        #expect(keys.renewalIDs == ["o5", "o6"])
        #expect(keys.subscriptionIDs == ["o6"])
        #expect(LedgerPlan.keys(of: [Self.entry([Self.transaction("1")])]).ownerIDs.isEmpty)
    }

    @Test func rejectionRecordsNothingButTheAuditEntry() {
        let snapshot = LedgerSnapshot(transactions: ["1": Self.transaction("1")], owners: ["1": "alice"])
        let entry = Self.entry([Self.transaction("1"), Self.transaction("9")], account: "bob", onConflict: .reject)
        let (changes, outcomes) = LedgerPlan.decide([entry], snapshot: snapshot)
        #expect(outcomes[0].isRejected)
        #expect(outcomes[0].newTransactionIDs.isEmpty)
        #expect(changes.onlyAudits)
        #expect(changes.audits.first?.verdict == .invalid)
        #expect(changes.audits.first?.reason == LedgerPlan.conflictCode)
    }

    @Test(arguments: [Verdict.Outcome.invalid, .inconclusive])
    func onlyValidVerdictsRecordTransactions(verdict: Verdict.Outcome) {
        let (changes, outcomes) = LedgerPlan.decide(
            [Self.entry([Self.transaction("1")], account: "alice", verdict: verdict)], snapshot: LedgerSnapshot())
        #expect(outcomes[0] == LedgerOutcome())
        #expect(changes.onlyAudits)
        #expect(changes.audits.count == 1)
    }

    @Test func aRefundSeenLaterUpdatesTheKnownTransaction() {
        var refunded = Self.transaction("1")
        refunded.cancellationDate = Self.t0
        var held = Self.transaction("1")
        held.reportedWithoutAccount = true
        let (changes, outcomes) = LedgerPlan.decide(
            [Self.entry([refunded])], snapshot: LedgerSnapshot(transactions: ["1": held]))
        #expect(outcomes[0].knownTransactionIDs == ["1"])
        #expect(changes.updates.map(\.cancellationDate) == [Self.t0])
        #expect(changes.touched.isEmpty)
    }
}

/// "New" per audience (issue 24, class 2) and signed facts over unsigned words (class 1), in the plan alone.
@Suite struct LedgerAudienceTests {
    typealias Plan = LedgerPlanTests

    static func notification(_ transactions: [LedgerTransaction]) -> LedgerEntry {
        var entry = Plan.entry(transactions)
        entry.notification = LedgerNotification(
            id: "n-1", version: "2", notificationType: "DID_RENEW", received: Plan.t0)
        return entry
    }

    /// A renewal Apple pushes before the owner verifies: recorded (and listed by the notification's answer as what it
    /// recorded first), yet still new to the owner, and to callers naming no account; each once.
    @Test func aNotificationUsesUpNobodysNew() {
        let owned = LedgerSnapshot(transactions: [:], owners: ["1": "alice"])
        let renewal = Plan.transaction("2", original: "1")
        let entries = [
            Self.notification([renewal]), Plan.entry([renewal], account: "bob"), Plan.entry([renewal]),
            Plan.entry([renewal], account: "alice"), Plan.entry([renewal], account: "alice"), Plan.entry([renewal]),
        ]
        let (changes, outcomes) = LedgerPlan.decide(entries, snapshot: owned)
        #expect(outcomes.map(\.newTransactionIDs) == [["2"], [], ["2"], ["2"], [], []])
        #expect(outcomes[1].conflicts.map(\.owner) == ["alice"])
        #expect(changes.inserts.map(\.transactionID) == ["2"])
        #expect(changes.inserts.first?.reportedToOwner == true)
        #expect(changes.inserts.first?.reportedWithoutAccount == true)
    }

    /// Apple's unsigned answer: may add a transaction to an unbound purchase or to the named account's, never to
    /// another account's, and never changes what a signed source recorded; the next signed sighting replaces it.
    @Test func anUnsignedWordOnlyAddsAndIsSuperseded() {
        var unsigned = Plan.transaction("5", original: "1")
        unsigned.source = .appleVerifyReceipt
        unsigned.productID = "wrong"
        var held = Plan.transaction("3", original: "1")
        held.reportedToOwner = true
        held.reportedWithoutAccount = true
        let snapshot = LedgerSnapshot(transactions: ["3": held], owners: ["1": "alice"])
        var rewrite = held
        rewrite.source = .appleVerifyReceipt
        rewrite.productID = "evil"
        rewrite.cancellationDate = Plan.t0
        let (changes, outcomes) = LedgerPlan.decide(
            [Plan.entry([unsigned, rewrite]), Plan.entry([unsigned], account: "bob")], snapshot: snapshot)
        #expect(changes.inserts.isEmpty, "nothing added to alice's purchase by others")
        #expect(changes.updates.isEmpty, "nothing rewritten")
        #expect(outcomes[0].newTransactionIDs.isEmpty)
        let (added, _) = LedgerPlan.decide([Plan.entry([unsigned], account: "alice")], snapshot: snapshot)
        #expect(added.inserts.map(\.source) == [.appleVerifyReceipt])

        var signed = unsigned
        signed.source = .storeKit
        signed.productID = "right"
        signed.signedDate = Plan.t0
        let (superseded, _) = LedgerPlan.decide(
            [Plan.entry([signed], account: "alice")], snapshot: LedgerSnapshot(transactions: ["5": unsigned]))
        #expect(superseded.updates.map(\.productID) == ["right"])
        #expect(superseded.updates.map(\.source) == [.storeKit])
    }

    /// A receipt's creation date is when Apple signed it: the later of a receipt and a StoreKit 2 statement decides
    /// a refund either way.
    @Test func theLaterSignedStatementDecidesARefund() {
        let early = ReceiptDate(clampingMillisecondsSince1970: 1_000)
        let late = ReceiptDate(clampingMillisecondsSince1970: 2_000)
        var receipt = Plan.transaction("1")
        receipt.signedDate = early
        receipt.cancellationDate = early
        var reversal = Plan.transaction("1")
        reversal.source = .storeKit
        reversal.signedDate = late
        #expect(receipt.merged(with: reversal).cancellationDate == nil, "a reversal signed later lifts it")
        var olderReversal = reversal
        olderReversal.signedDate = ReceiptDate(clampingMillisecondsSince1970: 500)
        #expect(receipt.merged(with: olderReversal).cancellationDate == early, "an older one does not")
        var laterReceipt = receipt
        laterReceipt.signedDate = ReceiptDate(clampingMillisecondsSince1970: 3_000)
        #expect(receipt.merged(with: reversal).merged(with: laterReceipt).cancellationDate == early)
    }
}

/// The rules around owners that a backend crediting "only new ids" relies on.
@Suite struct LedgerOwnerRuleTests {
    typealias Plan = LedgerPlanTests

    /// A renewal bob's receipt shows under alice's purchase is not bob's to be told about: it stays unrecorded
    /// (listed in the conflict) and is new for alice when her own receipt shows it.
    @Test func aRenewalOfAnothersPurchaseIsNewOnlyForItsOwner() {
        let first = Plan.entry([Plan.transaction("t0", original: "o")], account: "alice")
        let shared = [Plan.transaction("t0", original: "o"), Plan.transaction("t1", original: "o")]
        let byBob = Plan.entry(shared, account: "bob")
        let byAlice = Plan.entry(shared, account: "alice")
        let (changes, outcomes) = LedgerPlan.decide([first, byBob, byAlice], snapshot: LedgerSnapshot())
        #expect(outcomes[1].newTransactionIDs.isEmpty)
        #expect(outcomes[1].conflicts.first?.transactionIDs == ["t0", "t1"])
        #expect(outcomes[2].newTransactionIDs == ["t1"])
        #expect(changes.inserts.map(\.transactionID) == ["t0", "t1"])
    }

    /// "é" precomposed and decomposed are equal Strings but different accounts (different bytes), as the stores
    /// see them.
    @Test func accountsAreComparedByteForByte() {
        let first = Plan.entry([Plan.transaction("t0")], account: "caf\u{E9}")
        let second = Plan.entry([Plan.transaction("t0")], account: "cafe\u{301}")
        let (_, outcomes) = LedgerPlan.decide([first, second], snapshot: LedgerSnapshot())
        #expect(outcomes[1].conflicts.map(\.owner) == ["caf\u{E9}"])
    }
}

/// Entitlement states as of an instant.
@Suite struct EntitlementRuleTests {
    static func at(_ milliseconds: Int64) -> ReceiptDate { ReceiptDate(clampingMillisecondsSince1970: milliseconds) }

    static func transaction(
        _ id: String, original: String, kind: ProductKind, purchased: Int64, expires: Int64? = nil,
        cancelled: Int64? = nil
    ) -> LedgerTransaction {
        LedgerTransaction(
            transactionID: id, originalTransactionID: original, productID: "p.\(id)", kind: kind, bundleID: "b",
            environment: .sandbox, purchaseDate: at(purchased), expiresDate: expires.map(at),
            cancellationDate: cancelled.map(at), source: .receipt, firstSeen: at(0), lastSeen: at(0))
    }

    @Test func statesFollowTheInstant() {
        let transactions = [
            Self.transaction("s1", original: "s", kind: .autoRenewable, purchased: 100, expires: 200),
            Self.transaction("s2", original: "s", kind: .autoRenewable, purchased: 200, expires: 300, cancelled: 250),
            Self.transaction("pass", original: "pass", kind: .nonRenewing, purchased: 150),
            Self.transaction("gem", original: "gem", kind: .consumable, purchased: 50),
            Self.transaction("later", original: "later", kind: .nonConsumable, purchased: 1000),
        ]
        func states(_ instant: Int64) -> [String] {
            Entitlements.compute(transactions, at: Self.at(instant)).map { "\($0.originalTransactionID):\($0.state)" }
        }
        #expect(states(120) == ["s:active"], "before the pass was bought; consumables never")
        #expect(states(210) == ["pass:active", "s:active"])
        #expect(states(260) == ["pass:active", "s:revoked"], "the latest renewal was refunded at 250")
        #expect(states(2000) == ["later:active", "pass:active", "s:revoked"])
        let refundedPass =
            transactions + [
                Self.transaction("pass2", original: "pass", kind: .nonRenewing, purchased: 150, cancelled: 160)
            ]
        #expect(
            Entitlements.compute(refundedPass, at: Self.at(170)).first { $0.originalTransactionID == "pass" }?.state
                == .revoked)
    }
}
