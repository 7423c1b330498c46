import ReceiptModel
import ReceiptVerification
import Testing

@testable import ReceiptLedger

/// Notifications and renewal info in the shared decision procedure: a retry changes nothing, renewal info is
/// ordered by Apple's signed date, and entitlements follow grace periods and billing retry.
@Suite struct SubscriptionStateTests {
    static func at(_ milliseconds: Int64) -> ReceiptDate { ReceiptDate(clampingMillisecondsSince1970: milliseconds) }

    static func renewal(_ original: String, signed: Int64, retry: Bool? = nil, grace: Int64? = nil) -> LedgerRenewal {
        LedgerRenewal(
            originalTransactionID: original, productID: "p", autoRenewProductID: "p", autoRenewStatus: 1,
            isInBillingRetryPeriod: retry, gracePeriodExpiresDate: grace.map(at), environment: .sandbox,
            signedDate: at(signed), updated: at(signed))
    }

    static func notification(_ id: String, renewals: [LedgerRenewal] = [], transactions: [LedgerTransaction] = [])
        -> LedgerEntry
    {
        var entry = LedgerEntry(
            time: at(1_000), endpoint: "/v1/notifications/appstore", receiptSHA256: "00", verdict: .valid, reason: nil,
            decidedBy: .local, account: nil, transactions: transactions)
        entry.renewals = renewals
        entry.notification = LedgerNotification(
            id: id, version: "2", notificationType: "DID_RENEW", received: at(1_000))
        return entry
    }

    @Test func aNotificationRecordedBeforeChangesNothing() {
        let first = Self.notification("n1", renewals: [Self.renewal("s", signed: 10)])
        let (changes, outcomes) = LedgerPlan.decide([first, first], snapshot: LedgerSnapshot())
        #expect(outcomes.map(\.isDuplicateNotification) == [false, true])
        #expect(changes.notifications.map(\.id) == ["n1"])
        #expect(changes.renewals.count == 1)
        #expect(changes.audits.map(\.reason) == [nil, LedgerPlan.duplicateCode], "both are audited")
        var held = LedgerSnapshot()
        held.notificationIDs = ["n1"]
        let (again, outcome) = LedgerPlan.decide([first], snapshot: held)
        #expect(outcome.first?.isDuplicateNotification == true)
        #expect(again.renewals.isEmpty && again.notifications.isEmpty && !again.changesFacts)
    }

    @Test func renewalInfoSignedEarlierNeverReplacesLater() {
        var held = LedgerSnapshot()
        held.renewals["s"] = Self.renewal("s", signed: 20, retry: false)
        let older = Self.notification("old", renewals: [Self.renewal("s", signed: 10, retry: true)])
        let (changes, outcomes) = LedgerPlan.decide([older], snapshot: held)
        #expect(changes.renewals.isEmpty)
        #expect(outcomes.first?.staleRenewals == 1)
        #expect(changes.notifications.map(\.id) == ["old"], "recorded, so its retries are no-ops too")
        let newer = Self.notification("new", renewals: [Self.renewal("s", signed: 30, retry: true)])
        let (applied, _) = LedgerPlan.decide([newer], snapshot: held)
        #expect(applied.renewals.first?.isInBillingRetryPeriod == true)
    }

    @Test func anAppAccountTokenIsWrittenOnce() {
        var transaction = LedgerTransaction(
            transactionID: "t", originalTransactionID: "t", productID: "p", kind: .consumable, bundleID: "b",
            environment: .sandbox, source: .storeKit, firstSeen: Self.at(0), lastSeen: Self.at(0))
        transaction.appAccountToken = "6f1c0a2e-0000-4000-8000-000000000001"
        let entry = LedgerEntry(
            time: Self.at(0), endpoint: "/v1/verify", receiptSHA256: "00", verdict: .valid, reason: nil,
            decidedBy: .local, account: nil, transactions: [transaction])
        let (changes, _) = LedgerPlan.decide([entry, entry], snapshot: LedgerSnapshot())
        #expect(changes.accountTokens.map(\.token) == ["6f1c0a2e-0000-4000-8000-000000000001"])
    }

    @Test func entitlementsFollowGracePeriodsAndBillingRetry() {
        let lapsed = [
            LedgerTransaction(
                transactionID: "s1", originalTransactionID: "s", productID: "p", kind: .autoRenewable, bundleID: "b",
                environment: .sandbox, purchaseDate: Self.at(100), expiresDate: Self.at(200), source: .receipt,
                firstSeen: Self.at(0), lastSeen: Self.at(0))
        ]
        func state(_ renewal: LedgerRenewal?, at instant: Int64) -> Entitlement.State? {
            Entitlements.compute(lapsed, renewals: renewal.map { [$0] } ?? [], at: Self.at(instant)).first?.state
        }
        #expect(state(nil, at: 150) == .active)
        #expect(state(nil, at: 250) == .expired)
        #expect(state(Self.renewal("s", signed: 210, retry: true, grace: 300), at: 250) == .gracePeriod)
        #expect(state(Self.renewal("s", signed: 210, retry: true, grace: 300), at: 350) == .billingRetry)
        #expect(state(Self.renewal("s", signed: 210, retry: true), at: 250) == .billingRetry)
        #expect(state(Self.renewal("s", signed: 210, retry: false), at: 250) == .expired)
        #expect(state(Self.renewal("other", signed: 210, retry: true), at: 250) == .expired, "another subscription's")
    }

    @Test func aRefundIsDecidedByTheStatementAppleSignedLast() {
        func sighting(signed: Int64?, refunded: Int64?) -> LedgerTransaction {
            LedgerTransaction(
                transactionID: "t", originalTransactionID: "t", productID: "p", kind: .autoRenewable, bundleID: "b",
                environment: .sandbox, expiresDate: Self.at(900), cancellationDate: refunded.map(Self.at),
                source: signed == nil ? .receipt : .notification, firstSeen: Self.at(0), lastSeen: Self.at(0),
                signedDate: signed.map(Self.at))
        }
        var held = sighting(signed: nil, refunded: nil)
        for (step, (signed, refunded, expected)) in [
            (Int64?(20), Int64?(15), Int64?(15)),  // REFUND
            (10, nil, 15),  // an older statement, replayed: no effect
            (nil, nil, 15),  // a receipt: no effect on what a signed statement decided
            (30, nil, nil),  // REFUND_REVERSED
            (25, 15, nil),  // the REFUND again, older than the reversal: no effect
            (nil, 40, nil),  // a receipt showing a refund: no effect either
        ].enumerated() {
            held = held.merged(with: sighting(signed: signed, refunded: refunded))
            #expect(held.cancellationDate == expected.map(Self.at), "step \(step)")
        }
        // Known from receipts with a refund: a signed statement may add a refund, never remove that one.
        let refundedByReceipt = sighting(signed: nil, refunded: 50)
        #expect(refundedByReceipt.merged(with: sighting(signed: 60, refunded: nil)).cancellationDate == Self.at(50))
        #expect(sighting(signed: 60, refunded: nil).addsFacts(to: refundedByReceipt), "the signed date is new")
        #expect(!sighting(signed: nil, refunded: nil).addsFacts(to: sighting(signed: nil, refunded: nil)))
    }
}
