public import ReceiptModel

/// The instant at which a receipt's certificate chain is validated, always explicit.
///
/// Apple's receipt-signing leaves expire while the receipts they signed stay genuine, so the
/// default is the receipt's own creation date (attribute 12). Library code never reads the clock:
/// a caller who wants "now" reads its clock and passes the instant in.
public enum ValidationTime: Sendable, Hashable, CustomStringConvertible {
    /// The receipt's creation date (attribute 12); for iOS 6 receipts, the purchase date.
    case receiptCreation
    /// "Now", as read from a clock by the caller.
    case now(ReceiptDate)
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
        case .now(let instant): "now(\(instant))"
        case .fixed(let instant): "fixed(\(instant))"
        }
    }

    /// The instant this policy names for a receipt created at `creationDate`.
    func instant(creationDate: ReceiptDate?) -> ReceiptDate? {
        switch self {
        case .receiptCreation: creationDate
        case .now(let instant), .fixed(let instant): instant
        }
    }
}
