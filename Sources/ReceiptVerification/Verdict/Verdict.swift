public import ReceiptModel

/// The result of verifying one receipt: an outcome, the reasons that decided it, what was checked, and
/// the receipt itself as far as it decoded.
///
/// A value, never an error: only I/O while configuring throws. The first of ``reasons`` is the check
/// that decided the outcome; later ones are further independent findings. A `valid` verdict always
/// carries the receipt it vouches for (``verifiedReceipt``); `invalid` and `inconclusive` ones carry
/// whatever decoded (``receipt``), or why nothing did (``decodingError``).
///
/// The verdict knows nothing of Apple's verifyReceipt `status` numbers: `ReceiptRemote`, the layer that
/// speaks Apple's protocol, computes them (`VerifyReceiptStatus`).
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
    /// The receipt as decoded, whatever the outcome; `nil` when the bytes did not decode.
    public let receipt: ReceiptInput?
    /// Why the bytes did not decode into a receipt; `nil` when they did.
    public let decodingError: ReceiptError?
    /// Production, Sandbox or Xcode, when the receipt says (receipt type; Xcode when anchored at the
    /// StoreKit Testing certificate).
    public let environment: ReceiptEnvironment?
    /// The validation-time policy that was applied.
    public let validationTime: ValidationTime
    /// The instant the chain was validated at, when one could be determined.
    public let validationInstant: ReceiptDate?
    /// The subjects (RFC 2253) of the certificate path, leaf first; empty when no path was built.
    public let chain: [String]

    /// The deciding reason, when the outcome is not `valid`.
    public var reason: Reason? { reasons.first }
    /// `true` when ``outcome`` is `valid`.
    public var isValid: Bool { outcome == .valid }
    /// `true` when the bytes decoded into an app receipt (not an iOS 6 transaction receipt).
    public var isAppReceipt: Bool {
        if case .appReceipt? = receipt { return true }
        return false
    }
    /// The receipt this verdict vouches for: the decoded receipt when ``outcome`` is `valid`, else `nil`.
    public var verifiedReceipt: ReceiptInput? { outcome == .valid ? receipt : nil }

    /// A verdict about `receipt` (or about bytes that did not decode, with `decodingError`).
    public init(
        outcome: Outcome, reasons: [Reason], receipt: ReceiptInput?, decodingError: ReceiptError? = nil,
        environment: ReceiptEnvironment?, validationTime: ValidationTime, validationInstant: ReceiptDate?,
        chain: [String]
    ) {
        self.outcome = outcome
        self.reasons = reasons
        self.receipt = receipt
        self.decodingError = decodingError
        self.environment = environment
        self.validationTime = validationTime
        self.validationInstant = validationInstant
        self.chain = chain
    }

    /// The verdict for bytes that cannot be decoded: provably not a receipt Apple signed, so
    /// `invalid` with ``Reason/Code/receiptMalformed``.
    public static func malformed(_ error: ReceiptError, validationTime: ValidationTime) -> Verdict {
        Verdict(
            outcome: .invalid,
            reasons: [Reason(.receiptMalformed, "receipt: cannot be decoded (\(error.code)): \(error.reason)")],
            receipt: nil, decodingError: error, environment: nil, validationTime: validationTime,
            validationInstant: nil, chain: [])
    }

    /// This verdict with another outcome, reasons and environment: what a later judge (Apple, through the
    /// remote fallback) made of the same receipt. The receipt, chain and validation facts stay.
    public func deciding(_ outcome: Outcome, reasons: [Reason], environment: ReceiptEnvironment?) -> Verdict {
        Verdict(
            outcome: outcome, reasons: reasons, receipt: receipt, decodingError: decodingError,
            environment: environment, validationTime: validationTime, validationInstant: validationInstant,
            chain: chain)
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
