public import ReceiptVerification

/// What a history sync did: every verified transaction of the customer's history recorded through the ledger, each
/// reported new exactly once (across replicas), and every item that did not verify reported with its reason.
public struct SyncAnswer: Sendable {
    /// One item of the walked history that was not recorded.
    public struct Failure: Sendable, Hashable {
        /// Its 0-based position in the walked history.
        public let index: Int
        /// The verifier's reason code (`jws.signature_mismatch`, `remote.envelope_mismatch`, `ledger.conflict`, …).
        public let reason: String
        /// The reason in words.
        public let message: String

        public init(index: Int, reason: String, message: String) {
            self.index = index
            self.reason = reason
            self.message = message
        }
    }

    /// The app the history is about.
    public let bundleID: String
    /// The transaction id looked up; `nil` when there was none to look up (``note`` says why).
    public let transactionID: String?
    /// The environment whose API answered; `nil` when Apple was not asked.
    public let environment: ReceiptEnvironment?
    /// Transactions verified and recorded.
    public let synced: Int
    /// Of those, the ids the ledger had never seen.
    public let newTransactionIDs: [String]
    /// Of those, the ids the ledger already held.
    public let knownTransactionIDs: [String]
    /// The items not recorded, in history order.
    public let failed: [Failure]
    /// Why nothing was looked up, when nothing was (a receipt that lists no purchase).
    public let note: String?

    public init(
        bundleID: String, transactionID: String?, environment: ReceiptEnvironment?, synced: Int,
        newTransactionIDs: [String], knownTransactionIDs: [String], failed: [Failure], note: String?
    ) {
        self.bundleID = bundleID
        self.transactionID = transactionID
        self.environment = environment
        self.synced = synced
        self.newTransactionIDs = newTransactionIDs
        self.knownTransactionIDs = knownTransactionIDs
        self.failed = failed
        self.note = note
    }
}
