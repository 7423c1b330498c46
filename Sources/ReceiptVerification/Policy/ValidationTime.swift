public import ReceiptModel

/// The instant at which a receipt's certificate chain is validated: the package's one validation-time
/// type, for the verifier, the CLI's `--at`, the server's configuration and `/v1/verify`'s option.
///
/// Apple's receipt-signing leaves expire while the receipts they signed stay genuine, so the
/// default is the receipt's own creation date (attribute 12). `now` is the one case that needs a
/// clock: the instant comes from the call (`now:`), or else from the verifier's configured clock, and
/// the verdict records the instant used (``VerificationResult/validationInstant``).
public enum ValidationTime: Sendable, Hashable, CustomStringConvertible {
    /// The receipt's creation date (attribute 12); for iOS 6 receipts, the purchase date.
    case receiptCreation
    /// The instant of the call: the caller's "now".
    case now
    /// A fixed instant chosen by the caller (replaying a past decision, tests).
    case fixed(ReceiptDate)

    /// `receiptCreation`, `now` or `fixed`.
    public var name: String {
        switch self {
        case .receiptCreation: "receiptCreation"
        case .now: "now"
        case .fixed: "fixed"
        }
    }

    public var description: String {
        switch self {
        case .receiptCreation: "receiptCreation"
        case .now: "now"
        case .fixed(let instant): "fixed(\(instant))"
        }
    }

    /// The instant this choice names for a receipt created at `creationDate`; `now` is read only for `.now`.
    func instant(creationDate: ReceiptDate?, now: () -> ReceiptDate) -> ReceiptDate? {
        switch self {
        case .receiptCreation: creationDate
        case .now: now()
        case .fixed(let instant): instant
        }
    }
}
