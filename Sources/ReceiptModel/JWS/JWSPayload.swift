/// What a JWS signs, by the members its payload has: Apple's four payloads share no type field.
public enum JWSPayload: Sendable, Hashable {
    case transaction(JWSTransaction)
    case renewalInfo(JWSRenewalInfo)
    case appTransaction(JWSAppTransaction)
    case notification(NotificationV2)

    /// The kinds, as the CLI and JSON name them.
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case transaction
        case renewalInfo = "renewal_info"
        case appTransaction = "app_transaction"
        case notification

        public var description: String { rawValue }
    }

    /// Classifies `payload`: a notification has `notificationType`; a transaction `transactionId`; an app
    /// transaction `receiptType` (or `appTransactionId` without `transactionId`); renewal info
    /// `originalTransactionId` without `transactionId`. `nil` for anything else.
    public init?(_ payload: JSONObject) {
        if payload["notificationType"] != nil {
            self = .notification(NotificationV2(fields: payload))
        } else if payload["transactionId"] != nil {
            self = .transaction(JWSTransaction(fields: payload))
        } else if payload["receiptType"] != nil || payload["appTransactionId"] != nil {
            self = .appTransaction(JWSAppTransaction(fields: payload))
        } else if payload["originalTransactionId"] != nil {
            self = .renewalInfo(JWSRenewalInfo(fields: payload))
        } else {
            return nil
        }
    }

    public var kind: Kind {
        switch self {
        case .transaction: .transaction
        case .renewalInfo: .renewalInfo
        case .appTransaction: .appTransaction
        case .notification: .notification
        }
    }

    /// The payload's members, as signed.
    public var fields: JSONObject {
        switch self {
        case .transaction(let value): value.fields
        case .renewalInfo(let value): value.fields
        case .appTransaction(let value): value.fields
        case .notification(let value): value.fields
        }
    }

    /// When Apple signed it: `signedDate` (an app transaction without one: `receiptCreationDate`).
    public var signedDate: ReceiptDate? {
        switch self {
        case .appTransaction(let value): value.signedDate ?? value.receiptCreationDate
        default: fields.milliseconds("signedDate")
        }
    }

    /// The environment it names (`Production`, `Sandbox`, `Xcode`, `LocalTesting`).
    public var environment: String? {
        switch self {
        case .transaction(let value): value.environment
        case .renewalInfo(let value): value.environment
        case .appTransaction(let value): value.receiptType
        case .notification(let value): value.environment
        }
    }

    /// The bundle id it names; renewal info names none.
    public var bundleID: String? {
        switch self {
        case .transaction(let value): value.bundleID
        case .renewalInfo: nil
        case .appTransaction(let value): value.bundleID
        case .notification(let value): value.bundleID
        }
    }

    /// The app's Apple id, where the payload carries it (notifications, app transactions).
    public var appAppleID: Int64? {
        switch self {
        case .appTransaction(let value): value.appAppleID
        case .notification(let value): value.appAppleID
        default: nil
        }
    }
}
