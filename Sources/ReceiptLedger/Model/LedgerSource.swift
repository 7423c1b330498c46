/// Who reported a transaction to the ledger.
public struct LedgerSource: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// An app receipt verified locally.
    public static let receipt = LedgerSource(rawValue: "receipt")
    /// An iOS 6 transaction receipt verified locally.
    public static let iOS6Receipt = LedgerSource(rawValue: "ios6_receipt")
    /// Apple's verifyReceipt answer, when the remote fallback decided.
    public static let appleVerifyReceipt = LedgerSource(rawValue: "apple_verify_receipt")

    /// A StoreKit 2 signed transaction verified locally.
    public static let storeKit = LedgerSource(rawValue: "storekit_jws")
    /// A transaction nested in an App Store Server Notification V2, verified locally.
    public static let notification = LedgerSource(rawValue: "notification_v2")
    /// A signed transaction from Apple's App Store Server API (a history sync, subscription statuses), verified
    /// locally.
    public static let serverAPI = LedgerSource(rawValue: "server_api")

    /// The sources that may know more than a receipt shows (renewals after it, refunds): signed, and not a receipt.
    package static let beyondReceipts: [LedgerSource] = [.storeKit, .notification, .serverAPI]

    /// Whether Apple signed what this source reports and the package verified the signature locally. Apple's
    /// verifyReceipt answer is JSON over TLS, signed by no one: what it alone reports is recorded only where it
    /// can be tied to a verified receipt, never changes a fact a signed source recorded, and is superseded by the
    /// next signed statement about the transaction (docs/ledger.md, "Signed facts and unsigned words").
    package var isSigned: Bool { self != .appleVerifyReceipt }

    public var description: String { rawValue }
}
