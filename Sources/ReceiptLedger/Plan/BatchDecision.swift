import ReceiptModel
import ReceiptVerification

/// ``LedgerPlan/decide(_:snapshot:)`` one verification at a time: the state as the batch's earlier verifications
/// left it, and what the batch writes so far.
struct BatchDecision {
    /// The snapshot with the batch's own effects applied.
    private(set) var state: LedgerSnapshot
    private(set) var changes = LedgerChanges()
    /// Known transactions seen again with nothing new: only their last-seen time moves.
    private(set) var touched = Set<String>()
    /// Transaction id → its position in ``LedgerChanges/inserts`` or ``LedgerChanges/updates``.
    private var inserted: [String: Int] = [:]
    private var updated: [String: Int] = [:]
    /// Whether to decide events (``LedgerChanges/events``).
    private let recordsEvents: Bool
    /// Original transaction id → the ids of the transactions under it in ``state``, kept only when recording events:
    /// an entitlement is computed from its purchase's whole group.
    private var members: [String: Set<String>] = [:]
    /// The purchases the current verification has written to so far, with their entitlements before it, in the
    /// order first written.
    private var entitlementsBefore: [(original: String, previous: Entitlement?)] = []

    /// - Parameter recordsEvents: whether to decide events; then `snapshot` holds every transaction, owner and
    ///   renewal state under the original transaction ids the batch touches (``LedgerPlan/keys(of:recordsEvents:)``).
    init(snapshot: LedgerSnapshot, recordsEvents: Bool = false) {
        state = snapshot
        self.recordsEvents = recordsEvents
        guard recordsEvents else { return }
        for transaction in snapshot.transactions.values {
            members[transaction.originalTransactionID, default: []].insert(transaction.transactionID)
        }
    }

    /// Decides one verification after those before it; its audit entry and writes join the batch's.
    /// - Parameter receiptKey: the entry's ``LedgerReceiptKey``: when the ledger (or this batch) recorded that
    ///   receipt whole for that audience, the answer is every transaction known, and nothing but the audit entry is
    ///   written; when this verification records it whole without a conflict, the key is remembered.
    ///   An entry that comes without its transactions (``LedgerEntry/answersFromKeyOnly``) is answered from its key
    ///   with no transaction ids (its caller knows them), or, when the key is not known, not at all: nothing is
    ///   written for it, not even its audit entry, and the outcome says so.
    mutating func decide(_ entry: LedgerEntry, receiptKey: String? = nil) -> LedgerOutcome {
        if let receiptKey, state.knownReceipts.contains(receiptKey) {
            var outcome = LedgerOutcome(knownTransactionIDs: LedgerPlan.unique(entry.transactions).map(\.transactionID))
            outcome.receiptKey.known = true
            audit(entry, outcome, verdict: entry.verdict, reason: entry.reason)
            return outcome
        }
        if entry.answersFromKeyOnly {
            var outcome = LedgerOutcome()
            outcome.receiptKey.missing = true
            return outcome
        }
        var outcome = decideInFull(entry)
        if let receiptKey, outcome.conflicts.isEmpty, !outcome.isRejected {
            state.knownReceipts.insert(receiptKey)
            changes.receipts.append((receiptKey, entry.time))
            outcome.receiptKey.known = true
        }
        return outcome
    }

    /// ``decide(_:receiptKey:)`` transaction by transaction.
    private mutating func decideInFull(_ entry: LedgerEntry) -> LedgerOutcome {
        let eventsBefore = changes.events.count
        if entry.verdict == .valid, let notification = entry.notification {
            // A retry of a notification already recorded (this batch included) changes nothing.
            guard state.notificationIDs.insert(notification.id).inserted else {
                let outcome = LedgerOutcome(isDuplicateNotification: true)
                audit(entry, outcome, verdict: entry.verdict, reason: LedgerPlan.duplicateCode)
                return outcome
            }
            changes.notifications.append(notification)
        }
        let transactions = entry.verdict == .valid ? LedgerPlan.unique(entry.transactions) : []
        let conflicts = LedgerPlan.conflicts(of: transactions, account: entry.account, owners: state.owners)
        if recordsEvents, let account = entry.account {
            for conflict in conflicts {
                let first = transactions.first { $0.originalTransactionID == conflict.originalTransactionID }
                changes.events.append(
                    LedgerEventComposer.conflict(conflict, account: account, transaction: first, at: entry.time))
            }
        }
        if !conflicts.isEmpty && entry.onConflict == .reject {
            var outcome = LedgerOutcome(conflicts: conflicts, isRejected: true)
            outcome.recordedEvents = changes.events.count - eventsBefore
            audit(entry, outcome, verdict: .invalid, reason: LedgerPlan.conflictCode)
            return outcome
        }
        // The entitlements the verification changes, as they were before it, at its own instant (so that time passing
        // alone changes none): taken as each purchase's group is first written (``noteChange(of:at:)``), so a
        // verification that writes nothing new computes none.
        entitlementsBefore = []
        if let account = entry.account {
            for original in Set(transactions.map(\.originalTransactionID)).sorted() where state.owners[original] == nil
            {
                state.owners[original] = account
                changes.bindings.append(.init(originalTransactionID: original, account: account, time: entry.time))
            }
        }
        var outcome = LedgerOutcome(conflicts: conflicts)
        for transaction in transactions { record(transaction, of: entry, into: &outcome) }
        if entry.verdict == .valid { apply(entry.renewals, at: entry.time, into: &outcome) }
        for (original, previous) in entitlementsBefore {
            guard let after = entitlement(of: original, at: entry.time), after.state != previous?.state else {
                continue
            }
            let cause = transactions.last { $0.originalTransactionID == original }
            changes.events.append(
                LedgerEventComposer.entitlementChanged(
                    after, previous: previous?.state, transactionID: cause?.transactionID,
                    owner: state.owners[original],
                    at: entry.time))
        }
        changes.touchTime = max(changes.touchTime ?? entry.time, entry.time)
        outcome.recordedEvents = changes.events.count - eventsBefore
        audit(entry, outcome, verdict: entry.verdict, reason: entry.reason)
        return outcome
    }

    /// One transaction of a valid verification: inserted, merged into what is held, or only touched; reported new
    /// to the verification's audience when that audience has not been told.
    ///
    /// "New" is per audience: the purchase's owner (a verification naming the account it is bound to), or callers
    /// naming no account. A conflicting account is neither; Apple's notifications report to no one. Each audience is
    /// told once, under the writer lock, whoever saw the transaction first.
    private mutating func record(
        _ sighting: LedgerTransaction, of entry: LedgerEntry, into outcome: inout LedgerOutcome
    ) {
        let id = sighting.transactionID
        let owner = state.owners[sighting.originalTransactionID]
        let isOwner = entry.account.map { owner?.utf8.elementsEqual($0.utf8) ?? false } ?? false
        let reportsNew = entry.reportsNew && entry.notification == nil
        let withoutAccount = entry.account == nil && reportsNew
        guard let held = state.transactions[id] else {
            // An unsigned word adds nothing to a purchase bound to another account than the one named.
            if !sighting.source.isSigned, owner != nil, !isOwner { return }
            noteChange(of: sighting.originalTransactionID, at: entry.time)
            var transaction = sighting
            transaction.reportedToOwner = isOwner
            transaction.reportedWithoutAccount = withoutAccount
            state.transactions[id] = transaction
            inserted[id] = changes.inserts.count
            changes.inserts.append(transaction)
            if let token = transaction.appAccountToken { changes.accountTokens.append((id, token)) }
            if recordsEvents {
                members[transaction.originalTransactionID, default: []].insert(id)
                changes.events.append(LedgerEventComposer.purchaseNew(transaction, owner: owner, at: entry.time))
                if let revocation = transaction.cancellationDate {
                    changes.events.append(
                        LedgerEventComposer.refund(
                            transaction, revocation: revocation, reversed: false, owner: owner, at: entry.time))
                }
            }
            // A notification's answer lists what it recorded first, which consumes no one's "new".
            if isOwner || withoutAccount || !reportsNew { outcome.newTransactionIDs.append(id) }
            return
        }
        var merged = held.merged(with: sighting)
        // Where a refund is recorded or lifted (``LedgerTransaction/merged(with:)`` decides which statement wins).
        if recordsEvents, (held.cancellationDate == nil) != (merged.cancellationDate == nil) {
            let reversed = merged.cancellationDate == nil
            changes.events.append(
                LedgerEventComposer.refund(
                    merged, revocation: reversed ? held.cancellationDate : merged.cancellationDate, reversed: reversed,
                    owner: owner, at: entry.time))
        }
        if isOwner, !held.reportedToOwner {
            merged.reportedToOwner = true
            outcome.newTransactionIDs.append(id)
        } else if withoutAccount, !held.reportedWithoutAccount {
            merged.reportedWithoutAccount = true
            outcome.newTransactionIDs.append(id)
        } else {
            outcome.knownTransactionIDs.append(id)
        }
        if let token = sighting.appAccountToken, held.appAccountToken == nil, inserted[id] == nil {
            changes.accountTokens.append((id, token))
        }
        write(merged, over: held, at: entry.time)
    }

    /// A known transaction as merged: seen again with nothing new (the common case: a receipt verified again), only
    /// its last-seen time moves, by the batch's one touch, and no copy of the record is made; otherwise the record
    /// replaces the batch's insert or update of it, or becomes an update.
    private mutating func write(_ merged: LedgerTransaction, over held: LedgerTransaction, at instant: ReceiptDate) {
        let id = merged.transactionID
        if inserted[id] == nil, updated[id] == nil, !merged.changesFacts(of: held) {
            touched.insert(id)
            return
        }
        noteChange(of: merged.originalTransactionID, at: instant)
        state.transactions[id] = merged
        if let position = inserted[id] {
            changes.inserts[position] = merged
        } else if let position = updated[id] {
            changes.updates[position] = merged
        } else {
            updated[id] = changes.updates.count
            changes.updates.append(merged)
            touched.remove(id)
        }
    }

    /// Renewal infos, each replacing the held one only when Apple signed it later.
    private mutating func apply(
        _ renewals: [LedgerRenewal], at instant: ReceiptDate, into outcome: inout LedgerOutcome
    ) {
        for renewal in renewals {
            let original = renewal.originalTransactionID
            if let held = state.renewals[original], held.signedDate >= renewal.signedDate {
                outcome.staleRenewals += 1
                continue
            }
            noteChange(of: original, at: instant)
            state.renewals[original] = renewal
            changes.renewals.removeAll { $0.originalTransactionID == original }
            changes.renewals.append(renewal)
        }
    }

    /// Before the current verification first writes to the purchase `original` (a transaction inserted or changed,
    /// a renewal state applied): keeps its entitlement as it was, for the events. Only when recording events.
    private mutating func noteChange(of original: String, at instant: ReceiptDate) {
        guard recordsEvents, !entitlementsBefore.contains(where: { $0.original == original }) else { return }
        entitlementsBefore.append((original, entitlement(of: original, at: instant)))
    }

    /// The entitlement of the purchase `original` at `instant`, from every transaction and the renewal state
    /// ``state`` holds under it; `nil` for none (a consumable, or nothing held).
    private func entitlement(of original: String, at instant: ReceiptDate) -> Entitlement? {
        let group = (members[original] ?? []).compactMap { state.transactions[$0] }
        guard !group.isEmpty else { return nil }
        return Entitlements.compute(group, renewals: state.renewals[original].map { [$0] } ?? [], at: instant).first
    }

    private mutating func audit(
        _ entry: LedgerEntry, _ outcome: LedgerOutcome, verdict: Verdict.Outcome, reason: AuditReason?
    ) {
        changes.audits.append(LedgerPlan.audit(entry, outcome, verdict: verdict, reason: reason))
    }
}
