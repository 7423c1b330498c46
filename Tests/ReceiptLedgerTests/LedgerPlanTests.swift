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
            bundleID: "b", environment: "Sandbox", source: .receipt, firstSeen: time, lastSeen: time)
    }

    static func entry(
        _ transactions: [LedgerTransaction], account: String? = nil, verdict: Verdict.Outcome = .valid,
        onConflict: ConflictPolicy = .report
    ) -> LedgerEntry {
        LedgerEntry(
            time: t0, endpoint: "/v1/verify", receiptSHA256: "00", verdict: verdict, reason: nil, decidedBy: "local",
            account: account, transactions: transactions, onConflict: onConflict)
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

    @Test func rejectionRecordsNothingButTheAuditEntry() {
        let snapshot = LedgerSnapshot(transactions: ["1": Self.transaction("1")], owners: ["1": "alice"])
        let entry = Self.entry([Self.transaction("1"), Self.transaction("9")], account: "bob", onConflict: .reject)
        let (changes, outcomes) = LedgerPlan.decide([entry], snapshot: snapshot)
        #expect(outcomes[0].isRejected)
        #expect(outcomes[0].newTransactionIDs.isEmpty)
        #expect(changes.onlyAudits)
        #expect(changes.audits.first?.verdict == "invalid")
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
        let (changes, outcomes) = LedgerPlan.decide(
            [Self.entry([refunded])], snapshot: LedgerSnapshot(transactions: ["1": Self.transaction("1")]))
        #expect(outcomes[0].knownTransactionIDs == ["1"])
        #expect(changes.updates.map(\.cancellationDate) == [Self.t0])
        #expect(changes.touched.isEmpty)
    }
}
