import ReceiptModel
import ReceiptVerification

/// The ledger's one decision procedure, shared by every store: given what the store holds for a batch's
/// keys (read under the store's writer lock, so no other writer runs between the read and the commit), it
/// decides for each verification in order which transactions are new, which are known, which purchases
/// conflict, and what to write.
///
/// Processing the batch's verifications one after another, each seeing the effects of those before it, makes
/// a batch equivalent to the same verifications committed one at a time in that order.
package enum LedgerPlan {
    /// What a store reads first for `entries`.
    /// - Parameters:
    ///   - recordsEvents: whether the batch's events are decided too (``LedgerStoreOptions/recordsEvents``):
    ///   then the store also reads every transaction, the owner and the renewal state under each original
    ///   transaction id the batch touches, which an entitlement's state before and after depends on. Only then,
    ///   so a ledger without a webhook pays for none of it.
    ///   - answered: per entry (in order), whether its receipt key is known (``LedgerSnapshot/knownReceipts``): such
    ///     an entry is answered from the key, and nothing of it is read but the subscriptions it reads back
    ///     (``LedgerEntry/readsSubscriptions``). Empty for none.
    package static func keys(
        of entries: [LedgerEntry], recordsEvents: Bool = false, answered: [Bool] = []
    ) -> LedgerKeys {
        var transactionIDs = Set<String>()
        var owned = Set<String>()
        var renewed = Set<String>()
        var subscriptions = Set<String>()
        var notifications = Set<String>()
        // Original transaction ids whose whole group the events need (see `recordsEvents`).
        var groups = Set<String>()
        for (index, entry) in entries.enumerated() {
            subscriptions.formUnion(entry.readsSubscriptions)
            if index < answered.count, answered[index] { continue }
            guard entry.verdict == .valid else { continue }
            for transaction in entry.transactions {
                transactionIDs.insert(transaction.transactionID)
                // Owners matter to a verification naming an account (binding, conflicts, "new" to the owner) and to
                // an unsigned word, which may add nothing to another account's purchase.
                if entry.account != nil || !transaction.source.isSigned {
                    owned.insert(transaction.originalTransactionID)
                }
            }
            for renewal in entry.renewals { renewed.insert(renewal.originalTransactionID) }
            if let notification = entry.notification { notifications.insert(notification.id) }
            if recordsEvents {
                let touched =
                    entry.transactions.map(\.originalTransactionID) + entry.renewals.map(\.originalTransactionID)
                groups.formUnion(touched)
                owned.formUnion(touched)
            }
        }
        subscriptions.formUnion(groups)
        renewed.formUnion(subscriptions)
        return LedgerKeys(
            transactionIDs: transactionIDs.sorted(), ownerIDs: owned.sorted(), renewalIDs: renewed.sorted(),
            subscriptionIDs: subscriptions.sorted(), notificationIDs: notifications.sorted())
    }

    /// The receipt keys of `entries` (``LedgerReceiptKey``), which a store reads first: those it knows are answered
    /// without reading their transactions (``keys(of:recordsEvents:answered:)``).
    package static func receiptKeys(of entries: [LedgerEntry]) -> [String?] {
        entries.map { $0.preparedReceiptKey ?? LedgerReceiptKey.key(for: $0) }
    }

    /// The distinct keys among `receiptKeys`, sorted: what a store looks up, once each, however many verifications
    /// of the batch bring the same receipt (under load a batch is mostly one popular receipt seen again).
    package static func distinctKeys(_ receiptKeys: [String?]) -> [String] {
        Set(receiptKeys.compactMap { $0 }).sorted()
    }

    /// Decides a batch.
    /// - Parameters:
    ///   - snapshot: what the store read for ``keys(of:recordsEvents:)`` with the same `recordsEvents`.
    ///   - recordsEvents: whether to decide the batch's events (``LedgerChanges/events``) too.
    /// - Returns: the writes, and one outcome per entry, in order.
    package static func decide(
        _ entries: [LedgerEntry], snapshot: LedgerSnapshot, recordsEvents: Bool = false
    ) -> (LedgerChanges, [LedgerOutcome]) {
        var batch = BatchDecision(snapshot: snapshot, recordsEvents: recordsEvents)
        var outcomes: [LedgerOutcome] = []
        outcomes.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let key = index < snapshot.receiptKeys.count ? snapshot.receiptKeys[index] : nil
            outcomes.append(batch.decide(entry, receiptKey: key))
        }
        var changes = batch.changes
        changes.touched = batch.touched.sorted()
        readBackSubscriptions(entries, from: batch.state, into: &outcomes)
        return (changes, outcomes)
    }

    /// Gives each entry that asked (``LedgerEntry/readsSubscriptions``) the subscriptions under its ids as the
    /// batch leaves them: the snapshot held every transaction under those ids (``LedgerKeys/subscriptionIDs``),
    /// and the batch's own writes are in `state`, so no read follows the writes.
    private static func readBackSubscriptions(
        _ entries: [LedgerEntry], from state: LedgerSnapshot, into outcomes: inout [LedgerOutcome]
    ) {
        guard entries.contains(where: { !$0.readsSubscriptions.isEmpty }) else { return }
        var byOriginal: [String: [LedgerTransaction]] = [:]
        for transaction in state.transactions.values {
            byOriginal[transaction.originalTransactionID, default: []].append(transaction)
        }
        for (index, entry) in zip(outcomes.indices, entries) where !entry.readsSubscriptions.isEmpty {
            let wanted = Set(entry.readsSubscriptions).sorted()
            outcomes[index].subscriptions = LedgerSubscriptions(
                transactions: wanted.flatMap { byOriginal[$0] ?? [] }.sorted { $0.transactionID < $1.transactionID },
                renewals: wanted.compactMap { state.renewals[$0] })
        }
    }

    /// The audit reason of a notification recorded before.
    static let duplicateCode = AuditReason.verification(.notificationDuplicate)

    /// The reason code of a verification refused for its conflicts.
    static let conflictCode = AuditReason.verification(.ledgerConflict)

    /// The transactions with duplicate ids dropped (the first kept), in receipt order. Without duplicates (a receipt
    /// as Apple writes it), the same array: no transaction is copied.
    static func unique(_ transactions: [LedgerTransaction]) -> [LedgerTransaction] {
        var seen = Set<String>(minimumCapacity: transactions.count)
        guard let first = transactions.firstIndex(where: { !seen.insert($0.transactionID).inserted }) else {
            return transactions
        }
        var kept = Array(transactions[..<first])
        for transaction in transactions[(first + 1)...] where seen.insert(transaction.transactionID).inserted {
            kept.append(transaction)
        }
        return kept
    }

    /// The original transaction ids of `transactions` bound to another account than `account`, with the
    /// transaction ids under each; none without an account.
    static func conflicts(of transactions: [LedgerTransaction], account: String?, owners: [String: String])
        -> [LedgerConflict]
    {
        guard let account else { return [] }
        var conflicts: [LedgerConflict] = []
        var position: [String: Int] = [:]
        for transaction in transactions {
            let original = transaction.originalTransactionID
            // Accounts are compared byte for byte, as the stores compare them (String's == would equate
            // canonically equivalent spellings, e.g. a precomposed and a decomposed accent).
            guard let owner = owners[original], !owner.utf8.elementsEqual(account.utf8) else { continue }
            if let index = position[original] {
                conflicts[index].transactionIDs.append(transaction.transactionID)
            } else {
                position[original] = conflicts.count
                conflicts.append(
                    LedgerConflict(
                        originalTransactionID: original, owner: owner, transactionIDs: [transaction.transactionID]))
            }
        }
        return conflicts
    }

    static func audit(
        _ entry: LedgerEntry, _ outcome: LedgerOutcome, verdict: Verdict.Outcome, reason: AuditReason?
    ) -> AuditEntry {
        AuditEntry(
            time: entry.time, endpoint: entry.endpoint, receiptSHA256: entry.receiptSHA256, verdict: verdict,
            reason: reason, decidedBy: entry.decidedBy, account: entry.account,
            newTransactionIDs: outcome.newTransactionIDs, conflicts: outcome.conflicts)
    }
}
