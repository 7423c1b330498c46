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

    public var description: String { rawValue }
}
