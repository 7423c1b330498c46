package import ReceiptModel

/// One payload the JWS forge signs: a transaction, a renewal info or a V2 notification described member by member,
/// or any payload given as its JSON (``json(_:kind:)``), whatever members it has.
package enum JWSPayloadDescription: Hashable, Sendable {
    case transaction(JWSTransactionDescription)
    case renewalInfo(JWSRenewalInfoDescription)
    case notification(NotificationV2Description)
    /// The payload as JSON, members in order: an object held by a member that names a nested JWS
    /// (`signedTransactionInfo`, `signedRenewalInfo`, `signedAppTransactionInfo`; `signedTransactions` elements) is
    /// minted as one, valid, wherever it stands.
    case json(JSONObject, kind: JWSPayload.Kind)

    /// The kind as fixtures' `payload_type` names it: `transaction`, `renewal_info`, `app_transaction` or
    /// `notification`.
    package var kind: String {
        switch self {
        case .transaction: "transaction"
        case .renewalInfo: "renewal_info"
        case .notification: "notification"
        case .json(_, let kind): kind.rawValue
        }
    }

    /// The payload's `signedDate` (milliseconds since 1970): the instant a verifier validates the chain at.
    package var signedDate: Int64? {
        switch self {
        case .transaction(let transaction): transaction.signedDate
        case .renewalInfo(let renewalInfo): renewalInfo.signedDate
        case .notification(let notification): notification.signedDate
        case .json(let payload, let kind):
            JWSPayload(payload, kind: kind).signedDate.map(\.millisecondsSince1970)
        }
    }
}
