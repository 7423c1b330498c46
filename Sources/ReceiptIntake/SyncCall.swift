public import ReceiptModel

/// What a history sync is asked (`POST /v1/sync`, `receipt-server sync`): where to take a transaction id from, for
/// which app, and whose purchases they are.
public struct SyncCall: Sendable {
    /// Where the transaction id comes from.
    public enum Subject: Sendable {
        /// An app receipt, as the client sent it (base64 text when `isText`): verified locally first, and only a
        /// valid one is looked up.
        case receipt([UInt8], isText: Bool)
        /// A transaction id the caller already trusts (from its own records): looked up as it is.
        case transactionID(String)
    }

    public var subject: Subject
    /// The app; may be left out when one app is configured (or, for a receipt, the receipt's own).
    public var bundleID: String?
    /// The ledger's owner of the purchases, when the caller names one.
    public var account: String?
    /// The route or command the audit trail names.
    public var auditEndpoint: String
    /// "Now", read once by the caller.
    public var now: ReceiptDate

    public init(subject: Subject, bundleID: String?, account: String?, auditEndpoint: String, now: ReceiptDate) {
        self.subject = subject
        self.bundleID = bundleID
        self.account = account
        self.auditEndpoint = auditEndpoint
        self.now = now
    }
}
