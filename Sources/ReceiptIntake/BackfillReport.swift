public import ReceiptModel
public import ReceiptVerification

/// What a notification backfill did: every notification of the range fetched, verified and applied through the
/// intake as if pushed. One the ledger already held is a duplicate (nothing of it applied again); one that does not
/// verify is reported with its reason and changes nothing but its audit entry.
public struct BackfillReport: Sendable {
    public let bundleID: String
    public let environment: ReceiptEnvironment
    /// The range asked for (after the window bound).
    public let since: ReceiptDate
    public let until: ReceiptDate
    /// Pages of history walked.
    public let pages: Int
    /// Notifications in the range.
    public let seen: Int
    /// The `notificationUUID`s applied now (new to the ledger), in Apple's order.
    public let applied: [String]
    /// Notifications the ledger already held.
    public let duplicates: Int
    /// Notifications not applied, each with the verifier's reason (`index`: 0-based position in the history walked).
    public let failed: [SyncAnswer.Failure]

    public init(
        bundleID: String, environment: ReceiptEnvironment, since: ReceiptDate, until: ReceiptDate, pages: Int,
        seen: Int, applied: [String], duplicates: Int, failed: [SyncAnswer.Failure]
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.since = since
        self.until = until
        self.pages = pages
        self.seen = seen
        self.applied = applied
        self.duplicates = duplicates
        self.failed = failed
    }
}
