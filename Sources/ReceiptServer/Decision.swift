public import ReceiptModel
public import ReceiptVerification

/// The answer to one ``DecisionRequest``: the local verdict, the decoded receipt, the status to answer
/// and, when Apple was asked and decided, Apple's answer.
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
    /// The outcome answered: the local verdict's, or what Apple's answer made of it.
    public var outcome: Verdict.Outcome
    /// The receipt decoded from the request, or why it could not be decoded.
    public var input: Result<ReceiptInput, ReceiptError>
    /// Apple's answer, when Apple decided. Its body is passed through on the verifyReceipt routes when
    /// its status is the one answered.
    public var remote: RemoteAnswer?
    /// The verifyReceipt status to answer, before the endpoint's environment check: the local verdict's
    /// (0, 21002, 21003), Apple's when it decided, or the fallback's (21004, 21005 when Apple was
    /// needed and unreachable).
    public var status: Int
    /// Why; the first decided. Empty for a plain local `valid`.
    public var reasons: [DecisionReason]
    /// What a call to Apple gave, for metrics: Apple's status, or the failure's code (`remote.timeout`);
    /// `nil` when Apple was not asked.
    public var remoteCall: String?

    /// A decision; status and reasons default to Apple's (when `remote` is given) or the local verdict's,
    /// and it is decided `remote` exactly when `remote` is given.
    public init(
        verdict: Verdict, input: Result<ReceiptInput, ReceiptError>, outcome: Verdict.Outcome? = nil,
        remote: RemoteAnswer? = nil, status: Int? = nil, reasons: [DecisionReason]? = nil, remoteCall: String? = nil
    ) {
        self.verdict = verdict
        self.outcome = outcome ?? verdict.outcome
        self.input = input
        self.remote = remote
        self.status = status ?? remote?.status ?? verdict.status
        self.reasons = reasons ?? verdict.reasons.map { DecisionReason(code: $0.code.description, message: $0.message) }
        self.remoteCall = remoteCall
        self.decidedBy = remote == nil ? .local : .remote
    }

    /// Who decided.
    public var decidedBy: DecidedBy

    /// The environment: Apple's when it decided, else the local verdict's.
    public var environment: String? { remote?.environment ?? verdict.environment?.rawValue }
}
