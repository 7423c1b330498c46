public import ReceiptModel

/// The result of verifying one receipt: an outcome, the reasons that decided it, and what was checked.
///
/// A value, never an error: only I/O while configuring throws. The first of ``reasons`` is the check
/// that decided the outcome; later ones are further independent findings.
public struct Verdict: Sendable, CustomStringConvertible {
    /// Whether the receipt provably comes from Apple unmodified.
    public enum Outcome: String, Sendable, Hashable, CustomStringConvertible {
        /// It provably comes from Apple (or an opted-in Xcode certificate) unmodified, and meets the policy.
        case valid
        /// It provably does not, or it breaks the policy.
        case invalid
        /// The bytes at hand cannot decide (e.g. an iOS 6 receipt whose intermediate is missing).
        case inconclusive

        public var description: String { rawValue }
    }

    /// The outcome.
    public let outcome: Outcome
    /// Why; empty only when ``outcome`` is `valid`.
    public let reasons: [Reason]
    /// Production, Sandbox or Xcode, when the receipt says (receipt type; Xcode when anchored at the
    /// StoreKit Testing certificate).
    public let environment: ReceiptEnvironment?
    /// The validation-time policy that was applied.
    public let validationTime: ValidationTime
    /// The instant the chain was validated at, when one could be determined.
    public let validationInstant: ReceiptDate?
    /// The subjects (RFC 2253) of the certificate path, leaf first; empty when no path was built.
    public let chain: [String]
    /// The equivalent verifyReceipt `status`: 0 valid, 21002 malformed receipt data, 21003 not
    /// authenticated (every other invalid or inconclusive outcome).
    public let status: Int

    /// The deciding reason, when the outcome is not `valid`.
    public var reason: Reason? { reasons.first }
    /// `true` when ``outcome`` is `valid`.
    public var isValid: Bool { outcome == .valid }

    /// A verdict; ``status`` is derived from the outcome and the deciding reason.
    public init(
        outcome: Outcome, reasons: [Reason], environment: ReceiptEnvironment?, validationTime: ValidationTime,
        validationInstant: ReceiptDate?, chain: [String]
    ) {
        self.outcome = outcome
        self.reasons = reasons
        self.environment = environment
        self.validationTime = validationTime
        self.validationInstant = validationInstant
        self.chain = chain
        self.status = Self.status(outcome: outcome, reasons: reasons)
    }

    /// The verdict for bytes that cannot be decoded: provably not a receipt Apple signed, so
    /// `invalid` with ``Reason/Code/receiptMalformed`` and verifyReceipt's status 21002.
    public static func malformed(_ error: ReceiptError, validationTime: ValidationTime) -> Verdict {
        Verdict(
            outcome: .invalid,
            reasons: [Reason(.receiptMalformed, "receipt: cannot be decoded (\(error.code)): \(error.reason)")],
            environment: nil, validationTime: validationTime, validationInstant: nil, chain: [])
    }

    /// verifyReceipt's status for an outcome (`docs/receipt-format.md` §4). 21007/21008 (wrong environment)
    /// are a server's decision, not the verifier's.
    static func status(outcome: Outcome, reasons: [Reason]) -> Int {
        switch outcome {
        case .valid: 0
        case .invalid where reasons.first?.code == .receiptMalformed: 21002
        case .invalid, .inconclusive: 21003
        }
    }

    public var description: String {
        var text = "\(outcome)"
        if let reason { text += " (\(reason))" }
        if let environment { text += ", environment \(environment)" }
        text += ", validated at \(validationTime.name)"
        if let validationInstant { text += " \(validationInstant)" }
        return text
    }
}
