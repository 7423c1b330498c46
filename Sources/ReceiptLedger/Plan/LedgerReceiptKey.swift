import ReceiptModel
import ReceiptVerification

/// What makes a repeat sighting of a receipt cheap: a receipt the ledger recorded whole, for one audience, is
/// remembered by a key, and the same receipt for the same audience again is answered from the key alone (every
/// transaction known, nothing new, no conflict), with no per-transaction read or write; only its audit entry.
///
/// The key is the receipt's SHA-256, a digest of the transactions the verification recorded (every fact of each,
/// in order, so an entry whose `receiptSHA256` names other bytes than its transactions came from never matches),
/// and the audience: the account the verification names, or none.
///
/// Why the answer is exact: recording a receipt whole leaves each of its transactions held, merged with what the
/// receipt says and reported to that audience; merging the same statement again changes nothing
/// (``LedgerTransaction/merged(with:)`` keeps the later-signed refund, the later expiry, and fills only what is
/// missing), an owner is never rebound, and a purchase reported to an audience stays reported. A verification that
/// conflicted is never remembered, so its conflict is reported each time.
///
/// Only a plain receipt verification has a key: valid, every transaction from a locally verified receipt
/// (``LedgerSource/receipt``), no notification, no renewal state, and one that consumes "new"
/// (``LedgerEntry/reportsNew``). Subscriptions it reads back (``LedgerEntry/readsSubscriptions``) are not part of
/// the key: reading writes nothing, and an entry answered from its key still reads them, as the ledger holds them.
package enum LedgerReceiptKey {
    /// The entry's key, or `nil` when it has none.
    package static func key(for entry: LedgerEntry) -> String? {
        guard mayHaveKey(entry), !entry.transactions.isEmpty, entry.transactions.allSatisfy({ $0.source == .receipt })
        else { return nil }
        var digest = FNV1a()
        for transaction in LedgerPlan.unique(entry.transactions) { digest.add(transaction) }
        return key(receiptSHA256: entry.receiptSHA256, digest: digest.hex, account: entry.account)
    }

    /// The key of a receipt whose transactions a caller derives from the receipt's bytes alone, by a procedure
    /// `derivation` names (its version, and what else it depends on: the environment, the operator's catalogue):
    /// the same bytes and derivation give the same transactions, so the key is known before they are made, and a
    /// repeat sighting is answered without making them (``Ledger/record(_:receiptKey:derive:)``). It differs from
    /// every ``key(for:)`` (the digest part starts with `d`, which a hex digest never does).
    package static func key(receiptSHA256: String, derivation: String, account: String?) -> String {
        key(receiptSHA256: receiptSHA256, digest: "d" + derivation, account: account)
    }

    /// Whether an entry may have a key at all, its transactions aside: a valid verification of a receipt alone,
    /// that consumes "new".
    package static func mayHaveKey(_ entry: LedgerEntry) -> Bool {
        entry.verdict == .valid && entry.notification == nil && entry.renewals.isEmpty && entry.reportsNew
            && !entry.receiptSHA256.isEmpty
    }

    private static func key(receiptSHA256: String, digest: String, account: String?) -> String {
        let audience = account.map { "a:" + $0 } ?? "-"
        return receiptSHA256 + ":" + digest + ":" + audience
    }

    /// FNV-1a, 64 bits, over each fact of each transaction with separators: cheap, and enough to tell apart the
    /// transactions of entries that claim one receipt digest (the digest itself, SHA-256 of the bytes, is what no
    /// one can collide).
    package struct FNV1a {
        private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

        package init() {}

        mutating func add(_ transaction: LedgerTransaction) {
            add(transaction.transactionID)
            add(transaction.originalTransactionID)
            add(transaction.productID)
            add(transaction.kind.rawValue)
            add(transaction.bundleID)
            add(transaction.environment?.rawValue ?? "")
            add(transaction.purchaseDate)
            add(transaction.expiresDate)
            add(transaction.cancellationDate)
            add(transaction.signedDate)
            add(transaction.webOrderLineItemID ?? "")
            add(transaction.appAccountToken ?? "")
            byte(0x1E)
        }

        package mutating func add(_ text: String) {
            let utf8 = text.utf8
            let hashed: Bool? = utf8.withContiguousStorageIfAvailable { bytes in
                for unit in bytes { byte(unit) }
                return true
            }
            if hashed == nil {
                for unit in utf8 { byte(unit) }
            }
            byte(0x1F)
        }

        private mutating func add(_ date: ReceiptDate?) {
            guard let date else { return byte(0x1F) }
            let milliseconds = UInt64(bitPattern: date.millisecondsSince1970)
            for shift in stride(from: 0, to: 64, by: 8) { byte(UInt8(truncatingIfNeeded: milliseconds >> shift)) }
            byte(0x1D)
        }

        private mutating func byte(_ byte: UInt8) {
            value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
        }

        package var hex: String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
    }
}
