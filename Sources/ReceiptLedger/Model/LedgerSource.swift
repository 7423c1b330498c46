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

    public var description: String { rawValue }
}
