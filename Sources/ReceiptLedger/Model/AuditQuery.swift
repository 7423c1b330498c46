public import ReceiptModel

/// Which audit entries to read: all of them, or those at or after an instant, naming an account, or
/// involving a transaction (reported new, or in a conflict). Entries come in the order they were written.
public struct AuditQuery: Sendable, Hashable {
    public var since: ReceiptDate?
    public var account: String?
    public var transactionID: String?
    /// Only entries after this sequence number (to read a long trail page by page).
    public var afterSequence: Int64?
    /// The most entries returned; `nil` for all.
    public var limit: Int?

    public init(
        since: ReceiptDate? = nil, account: String? = nil, transactionID: String? = nil, afterSequence: Int64? = nil,
        limit: Int? = nil
    ) {
        self.since = since
        self.account = account
        self.transactionID = transactionID
        self.afterSequence = afterSequence
        self.limit = limit
    }
}
