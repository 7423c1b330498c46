import Synchronization

/// The receipt keys this process has seen its ledger know, each with the ids of the transactions its receipt lists:
/// what lets ``Ledger/record(_:receiptKey:derive:)`` answer a repeat sighting without making its transactions.
///
/// Sound across replicas and restarts because a ledger never forgets a key (none is ever removed): a key this process
/// saw known is known to every replica on the ledger, for good. Losing the memory (a restart, an eviction) costs the
/// next sighting a full recording, which is answered from the key and remembered again.
final class KnownReceiptKeys: Sendable {
    /// The most transaction ids kept, all keys together (about 50 bytes each): past it, keys are forgotten, in no
    /// particular order, until the new one fits. A receipt listing more is not kept at all.
    static let capacity = 500_000

    private struct Memory {
        var keys: [String: [String]] = [:]
        var count = 0
    }

    private let memory = Mutex(Memory())

    /// The transaction ids of the receipt known under `key`, or `nil` when this process has not seen it known.
    func transactionIDs(for key: String) -> [String]? {
        memory.withLock { $0.keys[key] }
    }

    /// Remembers that the ledger knows `key`, whose receipt lists `transactionIDs` (each once, in receipt order).
    func remember(_ key: String, transactionIDs: [String]) {
        guard transactionIDs.count <= Self.capacity else { return }
        memory.withLock { memory in
            if let previous = memory.keys.removeValue(forKey: key) { memory.count -= previous.count }
            while memory.count + transactionIDs.count > Self.capacity, let first = memory.keys.first {
                memory.keys.removeValue(forKey: first.key)
                memory.count -= first.value.count
            }
            memory.keys[key] = transactionIDs
            memory.count += transactionIDs.count
        }
    }
}
