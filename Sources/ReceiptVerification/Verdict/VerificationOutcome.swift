/// Whether what was verified provably comes from Apple unmodified: the one outcome of every verification
/// (an app receipt, an iOS 6 receipt, a JWS), decided by one rule (``judging(_:)``).
public enum VerificationOutcome: String, Sendable, Hashable, CustomStringConvertible {
    /// It provably comes from Apple (or an opted-in Xcode certificate) unmodified, and meets the policy.
    case valid
    /// It provably does not, or it breaks the policy.
    case invalid
    /// The bytes at hand cannot decide (e.g. an iOS 6 receipt whose intermediate is missing).
    case inconclusive

    public var description: String { rawValue }

    /// The outcome rule: `valid` without reasons, `invalid` when any reason proves the subject false or
    /// unacceptable (``Reason/decides``), else `inconclusive`.
    public static func judging(_ reasons: [Reason]) -> VerificationOutcome {
        if reasons.isEmpty { return .valid }
        return reasons.contains(where: \.decides) ? .invalid : .inconclusive
    }

    /// `reasons` in the order a verdict lists them: those that decide first, each group in the order found, so
    /// that the first reason is the one that decided.
    static func ordered(_ reasons: [Reason]) -> [Reason] {
        reasons.filter(\.decides) + reasons.filter { !$0.decides }
    }
}
