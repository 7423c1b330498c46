public import ReceiptVerification

/// One signed item of an App Store Server API answer, as received and as the local verifier judged it.
///
/// An item counts only when ``verdict`` is valid: a signature, chain, marker or policy failure, or an app or
/// environment other than the answer's, makes it invalid with its reason, and it is reported, never dropped.
public struct SignedItem: Sendable {
    /// The item's 0-based position in the walk (across pages), or in the answer.
    public let index: Int
    /// The JWS text exactly as Apple sent it.
    public let jws: [UInt8]
    /// The local verification.
    public let verdict: JWSVerdict

    public init(index: Int, jws: [UInt8], verdict: JWSVerdict) {
        self.index = index
        self.jws = jws
        self.verdict = verdict
    }

    /// Whether the item verified and agrees with its answer.
    public var isValid: Bool { verdict.isValid }
}
