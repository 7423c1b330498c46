/// One payload the JWS forge signs: a transaction, a renewal info or a V2 notification.
public enum JWSPayloadDescription: Hashable, Sendable {
    case transaction(JWSTransactionDescription)
    case renewalInfo(JWSRenewalInfoDescription)
    case notification(NotificationV2Description)

    /// The kind as fixtures' `payload_type` names it: `transaction`, `renewal_info` or `notification`.
    public var kind: String {
        switch self {
        case .transaction: "transaction"
        case .renewalInfo: "renewal_info"
        case .notification: "notification"
        }
    }

    /// The payload's `signedDate` (milliseconds since 1970): the instant a verifier validates the chain at.
    public var signedDate: Int64? {
        switch self {
        case .transaction(let transaction): transaction.signedDate
        case .renewalInfo(let renewalInfo): renewalInfo.signedDate
        case .notification(let notification): notification.signedDate
        }
    }
}
