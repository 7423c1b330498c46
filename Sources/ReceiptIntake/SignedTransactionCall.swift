public import ReceiptModel
public import ReceiptVerification

/// What one StoreKit 2 signed-transaction verification asks of the intake (`/v1/verify` with
/// `signed_transaction`), held to the operator's configuration by the caller.
public struct SignedTransactionCall: Sendable {
    /// The JWS text as received.
    public var jws: [UInt8]
    /// The validation time, never looser than the operator's.
    public var validationTime: ValidationTime
    /// The policy, the operator's narrowed by the call's options; `nil` is the operator's as it is.
    public var policy: ReceiptPolicy?
    /// The ledger's owner of the purchase, when the caller names one.
    public var account: String?
    /// The route the audit trail names.
    public var auditEndpoint: String
    /// "Now", read once by the caller.
    public var now: ReceiptDate

    public init(
        jws: [UInt8], validationTime: ValidationTime, policy: ReceiptPolicy?, account: String?, auditEndpoint: String,
        now: ReceiptDate
    ) {
        self.jws = jws
        self.validationTime = validationTime
        self.policy = policy
        self.account = account
        self.auditEndpoint = auditEndpoint
        self.now = now
    }
}
