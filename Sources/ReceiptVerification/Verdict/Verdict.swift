public import ReceiptModel

/// The result of verifying one receipt (an app receipt or an iOS 6 transaction receipt): a
/// ``VerificationResult`` whose subject is the receipt as far as it decoded.
///
/// A `valid` verdict always carries the receipt it vouches for (``VerificationResult/verifiedReceipt``);
/// `invalid` and `inconclusive` ones carry whatever decoded (``VerificationResult/receipt``), or why nothing did
/// (``VerificationResult/decodingError``).
public typealias Verdict = VerificationResult<ReceiptSubject>

/// What a receipt's bytes decoded into: the receipt, or why nothing did.
public struct ReceiptSubject: VerificationSubject {
    /// The receipt as decoded, whatever the outcome; `nil` when the bytes did not decode.
    public let receipt: ReceiptInput?
    /// Why the bytes did not decode into a receipt; `nil` when they did.
    public let decodingError: ReceiptError?

    public init(receipt: ReceiptInput?, decodingError: ReceiptError? = nil) {
        self.receipt = receipt
        self.decodingError = decodingError
    }

    public var summary: String? { nil }
}

extension VerificationResult where Subject == ReceiptSubject {
    /// A verdict about `receipt` (or about bytes that did not decode, with `decodingError`).
    public init(
        outcome: Outcome, reasons: [Reason], receipt: ReceiptInput?, decodingError: ReceiptError? = nil,
        environment: ReceiptEnvironment?, validationTime: ValidationTime, validationInstant: ReceiptDate?,
        chain: [String]
    ) {
        self.init(
            outcome: outcome, reasons: reasons, subject: ReceiptSubject(receipt: receipt, decodingError: decodingError),
            environment: environment, validationTime: validationTime, validationInstant: validationInstant,
            chain: chain)
    }

    /// The receipt as decoded, whatever the outcome; `nil` when the bytes did not decode.
    public var receipt: ReceiptInput? { subject.receipt }
    /// Why the bytes did not decode into a receipt; `nil` when they did.
    public var decodingError: ReceiptError? { subject.decodingError }
    /// `true` when the bytes decoded into an app receipt (not an iOS 6 transaction receipt).
    public var isAppReceipt: Bool {
        if case .appReceipt? = receipt { return true }
        return false
    }
    /// The receipt this verdict vouches for: the decoded receipt when ``outcome`` is `valid`, else `nil`.
    public var verifiedReceipt: ReceiptInput? { verifiedSubject?.receipt }

    /// The verdict for bytes that cannot be decoded: provably not a receipt Apple signed, so
    /// `invalid` with ``Reason/Code/receiptMalformed``.
    public static func malformed(_ error: ReceiptError, validationTime: ValidationTime) -> Verdict {
        Verdict(
            judging: [Reason(.receiptMalformed, "receipt: cannot be decoded (\(error.code)): \(error.reason)")],
            subject: ReceiptSubject(receipt: nil, decodingError: error), environment: nil,
            validationTime: validationTime, validationInstant: nil, chain: [])
    }
}
