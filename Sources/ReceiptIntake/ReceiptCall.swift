public import ReceiptModel
public import ReceiptRemote
public import ReceiptVerification

/// What one app-receipt verification asks of the intake, once the transport has read it and held it to the
/// operator's configuration (the password to the shared secret, options only narrowing the policy).
public struct ReceiptCall: Sendable {
    /// Which contract the answer follows.
    public enum Contract: Sendable, Hashable {
        /// Apple's verifyReceipt at this endpoint: its status answers the environment contract (21007, 21008), only
        /// a status-0 answer credits anything, and the answer includes what the ledger knows beyond the receipt.
        case verifyReceipt(ReceiptEnvironment)
        /// The project's own verdict (`/v1/verify`): the receipt's verdict as it is, with the ledger's outcome.
        case verdict
    }

    /// The receipt as the client sent it (base64 text, DER, an iOS 6 plist…).
    public var receiptData: ArraySlice<UInt8>
    /// What the fallback is asked: the password, overrides, whether Apple may be asked.
    public var request: FallbackRequest
    public var contract: Contract
    /// The ledger's owner of the receipt's purchases, when the caller names one.
    public var account: String?
    /// `true` when ``receiptData`` came as text that must be base64 (JSON): text that is not is refused
    /// (``IntakeError/Code/invalidBase64``) rather than judged as a receipt.
    public var isText: Bool
    /// The route or command the audit trail names (`/verifyReceipt`, `/v1/verify`).
    public var auditEndpoint: String
    /// "Now", read once by the caller.
    public var now: ReceiptDate

    public init(
        receiptData: ArraySlice<UInt8>, request: FallbackRequest, contract: Contract, account: String? = nil,
        isText: Bool = false, auditEndpoint: String, now: ReceiptDate
    ) {
        self.receiptData = receiptData
        self.request = request
        self.contract = contract
        self.account = account
        self.isText = isText
        self.auditEndpoint = auditEndpoint
        self.now = now
    }
}
