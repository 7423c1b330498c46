public import ReceiptModel
public import ReceiptVerification

/// The answer to one ``DecisionRequest``: the local verdict, the decoded receipt, and, when Apple was
/// asked and answered, Apple's answer, which then decides.
public struct Decision: Sendable {
    /// Who decided the answer.
    public enum DecidedBy: String, Sendable, Hashable, CustomStringConvertible {
        /// This server's own verification.
        case local
        /// Apple's verifyReceipt, asked by the remote fallback.
        case remote

        public var description: String { rawValue }
    }

    /// The local verdict (always computed first).
    public var verdict: Verdict
    /// The receipt decoded from the request, or why it could not be decoded.
    public var input: Result<ReceiptInput, ReceiptError>
    /// Apple's answer, when the fallback asked and got one.
    public var remote: RemoteAnswer?
    /// `true` when a remote call was attempted but gave no usable answer (network error, 5xx, timeout).
    public var remoteFailed: Bool

    public init(
        verdict: Verdict, input: Result<ReceiptInput, ReceiptError>, remote: RemoteAnswer? = nil,
        remoteFailed: Bool = false
    ) {
        self.verdict = verdict
        self.input = input
        self.remote = remote
        self.remoteFailed = remoteFailed
    }

    /// `remote` when Apple's answer is present, else `local`.
    public var decidedBy: DecidedBy { remote == nil ? .local : .remote }

    /// The verifyReceipt status before the endpoint's environment check: Apple's when it decided,
    /// else the local verdict's (0, 21002 or 21003).
    public var status: Int { remote?.status ?? verdict.status }
}
