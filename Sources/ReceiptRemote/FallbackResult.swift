public import ReceiptModel
public import ReceiptVerification

/// The combined answer of ``FallbackVerifier``: the local verdict, Apple's answer if it was asked, and
/// what they add up to.
public struct FallbackResult: Sendable, CustomStringConvertible {
    /// The combined outcome (see docs/remote-fallback.md for the decision table).
    public let outcome: Verdict.Outcome
    /// Whether the local verdict or Apple's answer decided ``outcome``.
    public let decidedBy: DecisionSource
    /// The verifyReceipt `status` to report: Apple's when Apple decided (0, 21006, 21003, …), the local
    /// verdict's when it stands, 21005 ("try again later") when Apple was needed but unreachable.
    public let status: Int
    /// Why; the first reason decided. Empty only for a plain `valid`.
    public let reasons: [FallbackReason]
    /// The local verdict, always computed first.
    public let localVerdict: Verdict
    /// The receipt as decoded locally; `nil` when it could not be decoded.
    public let decoded: ReceiptInput?
    /// Why Apple was asked (or would have been, with remote off); `nil` when the local verdict was final.
    public let trigger: FallbackTrigger?
    /// Apple's final answer, when it gave one.
    public let remoteResponse: VerifyReceiptResponse?
    /// Why Apple gave no usable answer, when it was asked and did not.
    public let remoteError: RemoteError?

    /// The environment: Apple's (`Production`/`Sandbox`) when Apple decided, else the local verdict's.
    public var environment: String? {
        if decidedBy == .remote, let environment = remoteResponse?.effectiveEnvironment { return environment }
        return localVerdict.environment?.rawValue
    }

    /// The deciding reason.
    public var reason: FallbackReason? { reasons.first }
    /// `true` when ``outcome`` is `valid`.
    public var isValid: Bool { outcome == .valid }
    /// `true` when Apple was asked (whatever came of it).
    public var askedApple: Bool { remoteResponse != nil || remoteError != nil }

    public init(
        outcome: Verdict.Outcome, decidedBy: DecisionSource, status: Int, reasons: [FallbackReason],
        localVerdict: Verdict, decoded: ReceiptInput?, trigger: FallbackTrigger?,
        remoteResponse: VerifyReceiptResponse?, remoteError: RemoteError?
    ) {
        self.outcome = outcome
        self.decidedBy = decidedBy
        self.status = status
        self.reasons = reasons
        self.localVerdict = localVerdict
        self.decoded = decoded
        self.trigger = trigger
        self.remoteResponse = remoteResponse
        self.remoteError = remoteError
    }

    public var description: String {
        var text = "\(outcome) (decided \(decidedBy), status \(status))"
        if let reason { text += ": \(reason)" }
        return text
    }
}
