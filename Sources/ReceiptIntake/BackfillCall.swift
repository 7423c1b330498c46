public import ReceiptModel
public import ReceiptVerification

/// What a notification backfill is asked: one app, one environment, a time range.
public struct BackfillCall: Sendable {
    public var bundleID: String
    /// Production or Sandbox (Apple keeps a history per environment).
    public var environment: ReceiptEnvironment
    /// The earliest instant asked for; `nil` starts at the `signedDate` of the latest notification of this app and
    /// environment the ledger holds, or at the start of Apple's window when it holds none. Never earlier than
    /// Apple's window (``BackfillCall/window(_:)``).
    public var since: ReceiptDate?
    /// The end of the range; `nil` is ``now``.
    public var until: ReceiptDate?
    /// The route or command the audit trail names.
    public var auditEndpoint: String
    /// "Now", read once by the caller.
    public var now: ReceiptDate

    public init(
        bundleID: String, environment: ReceiptEnvironment, since: ReceiptDate? = nil, until: ReceiptDate? = nil,
        auditEndpoint: String, now: ReceiptDate
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.since = since
        self.until = until
        self.auditEndpoint = auditEndpoint
        self.now = now
    }

    /// How far back Apple keeps notifications: 180 days in Production, 30 in Sandbox.
    public static func window(_ environment: ReceiptEnvironment) -> Duration {
        .seconds((environment == .production ? 180 : 30) * 86_400)
    }
}
