public import ReceiptVerification

/// What ``FallbackVerifier`` answers: the ``ReceiptVerification/Verdict`` that counts, plus who decided it
/// and what Apple said.
///
/// ``verdict`` is the one outcome type of the package: when the local verdict stands it *is* the local
/// verdict; when Apple decided, it is the local verdict's receipt, chain and validation facts with Apple's
/// outcome, reasons and environment. Nothing here re-states the outcome: read it from ``verdict``.
/// verifyReceipt's `status` for it comes from ``VerifyReceiptStatus``.
public struct AttributedVerdict: Sendable, CustomStringConvertible {
    /// The verdict that counts.
    public let verdict: Verdict
    /// Who decided it.
    public let decidedBy: DecidedBy
    /// The local verdict, always computed first (the same value as ``verdict`` when decided locally
    /// without asking Apple).
    public let localVerdict: Verdict
    /// Why Apple was asked (or would have been, with remote off); `nil` when the local verdict was final.
    public let trigger: FallbackTrigger?
    /// Apple's answer, when it gave one (whether or not it decided).
    public let appleResponse: VerifyReceiptResponse?
    /// Why Apple gave no usable answer, when it was asked and did not.
    public let remoteError: RemoteError?

    /// `true` when Apple was asked (whatever came of it).
    public var askedApple: Bool { appleResponse != nil || remoteError != nil }

    /// A verdict decided by the bytes at hand.
    public static func local(_ verdict: Verdict, trigger: FallbackTrigger? = nil) -> AttributedVerdict {
        AttributedVerdict(
            verdict: verdict, decidedBy: .local, localVerdict: verdict, trigger: trigger, appleResponse: nil,
            remoteError: nil)
    }

    public init(
        verdict: Verdict, decidedBy: DecidedBy, localVerdict: Verdict, trigger: FallbackTrigger?,
        appleResponse: VerifyReceiptResponse?, remoteError: RemoteError?
    ) {
        self.verdict = verdict
        self.decidedBy = decidedBy
        self.localVerdict = localVerdict
        self.trigger = trigger
        self.appleResponse = appleResponse
        self.remoteError = remoteError
    }

    public var description: String {
        var text = "\(verdict.outcome) (decided \(decidedBy), status \(VerifyReceiptStatus.status(of: self)))"
        if let reason = verdict.reason { text += ": \(reason)" }
        return text
    }
}
