public import ReceiptModel

/// What a subject decoded into, for ``VerificationResult``: an app or iOS 6 receipt (``ReceiptSubject``), or a
/// JWS and its payload (``JWSSubject``).
public protocol VerificationSubject: Sendable {
    /// A word for the verdict's description (a JWS payload's kind); `nil` when there is none to add.
    var summary: String? { get }
}

/// The result of verifying one subject: an outcome, the reasons that decided it, what was checked, and the subject
/// as far as it decoded. ``Verdict`` (receipts) and ``JWSVerdict`` (StoreKit 2 JWS, notifications) are its two
/// kinds; they share the outcome rule (``VerificationOutcome/judging(_:)``), the way to add a reason and re-decide
/// (``adding(_:)``), and the way another judge (Apple, through the remote fallback) decides again
/// (``deciding(_:reasons:environment:)``).
///
/// A value, never an error: only I/O while configuring throws. The first of ``reasons`` is the check that decided
/// the outcome; later ones are further independent findings. A `valid` result always carries the subject it vouches
/// for. It knows nothing of Apple's verifyReceipt `status` numbers: `ReceiptRemote` computes them.
public struct VerificationResult<Subject: VerificationSubject>: Sendable, CustomStringConvertible {
    public typealias Outcome = VerificationOutcome

    /// The outcome.
    public let outcome: Outcome
    /// Why; empty only when ``outcome`` is `valid`.
    public let reasons: [Reason]
    /// What was verified, as far as it decoded, whatever the outcome.
    public let subject: Subject
    /// Production, Sandbox or Xcode, when the subject says (Xcode when anchored at a StoreKit Testing certificate).
    public let environment: ReceiptEnvironment?
    /// The validation-time policy that was applied.
    public let validationTime: ValidationTime
    /// The instant the chain was validated at, when one could be determined.
    public let validationInstant: ReceiptDate?
    /// The subjects (RFC 2253) of the certificate path, leaf first; empty when no path was built.
    public let chain: [String]

    /// A result with the outcome stated (a judge that decides by its own rule, as Apple does).
    public init(
        outcome: Outcome, reasons: [Reason], subject: Subject, environment: ReceiptEnvironment?,
        validationTime: ValidationTime, validationInstant: ReceiptDate?, chain: [String]
    ) {
        self.outcome = outcome
        self.reasons = reasons
        self.subject = subject
        self.environment = environment
        self.validationTime = validationTime
        self.validationInstant = validationInstant
        self.chain = chain
    }

    /// The result the checks' `reasons` decide, by the one outcome rule.
    public init(
        judging reasons: [Reason], subject: Subject, environment: ReceiptEnvironment?,
        validationTime: ValidationTime, validationInstant: ReceiptDate?, chain: [String]
    ) {
        self.init(
            outcome: .judging(reasons), reasons: VerificationOutcome.ordered(reasons), subject: subject,
            environment: environment, validationTime: validationTime, validationInstant: validationInstant,
            chain: chain)
    }

    /// The deciding reason, when the outcome is not `valid`.
    public var reason: Reason? { reasons.first }
    /// `true` when ``outcome`` is `valid`.
    public var isValid: Bool { outcome == .valid }
    /// The subject this result vouches for: ``subject`` when ``outcome`` is `valid`, else `nil`.
    public var verifiedSubject: Subject? { isValid ? subject : nil }

    /// This result with `reason` found as well, decided again by the one outcome rule: a reason that decides
    /// (``Reason/decides``) makes it `invalid` and comes first. How a later check (the operator's notification
    /// rules, the ledger's refusal of a conflict) turns a result down.
    public func adding(_ reason: Reason) -> Self {
        Self(
            judging: [reason] + reasons, subject: subject, environment: environment, validationTime: validationTime,
            validationInstant: validationInstant, chain: chain)
    }

    /// This result with another outcome, reasons and environment: what a later judge (Apple, through the remote
    /// fallback) made of the same subject. The subject, chain and validation facts stay.
    public func deciding(_ outcome: Outcome, reasons: [Reason], environment: ReceiptEnvironment?) -> Self {
        Self(
            outcome: outcome, reasons: reasons, subject: subject, environment: environment,
            validationTime: validationTime, validationInstant: validationInstant, chain: chain)
    }

    public var description: String {
        var text = "\(outcome)"
        if let reason { text += " (\(reason))" }
        if let summary = subject.summary { text += ", \(summary)" }
        if let environment { text += ", environment \(environment)" }
        text += ", validated at \(validationTime.name)"
        if let validationInstant { text += " \(validationInstant)" }
        return text
    }
}
