/// What a JWS signs, by kind. Apple's payloads share no type field, so the kind is known from where the JWS was
/// found (``Kind/init(member:)``: `signedTransactionInfo` holds a transaction, `signedPayload` a notification, …);
/// only a JWS on its own, with nothing saying what it is, needs ``Kind/guess(_:)``.
public enum JWSPayload: Sendable, Hashable {
    case transaction(JWSTransaction)
    case renewalInfo(JWSRenewalInfo)
    case appTransaction(JWSAppTransaction)
    case notification(NotificationV2)

    /// The kinds, as the CLI (`--jws-kind`) and JSON name them.
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case transaction
        case renewalInfo = "renewal_info"
        case appTransaction = "app_transaction"
        case notification

        public var description: String { rawValue }

        /// The kind of the JWS a JSON member holds, by the member's name: Apple's `signedTransactionInfo`,
        /// `signedTransactions` (each element), `signedRenewalInfo`, `signedAppTransactionInfo`, `signedPayload`, and
        /// this package's own `signed_transaction`. `nil` for any other name.
        public init?(member: String) {
            switch member {
            case "signedTransactionInfo", "signedTransactions", "signed_transaction": self = .transaction
            case "signedRenewalInfo": self = .renewalInfo
            case "signedAppTransactionInfo": self = .appTransaction
            case "signedPayload": self = .notification
            default: return nil
            }
        }

        /// The members every payload of this kind has, and that no payload of another kind has all of. A payload
        /// of a kind lacks none of them whatever Apple adds: they identify what it is about.
        package var requiredMembers: [String] {
            switch self {
            case .transaction: Self.transactionMembers
            case .renewalInfo: Self.renewalInfoMembers
            case .appTransaction: Self.appTransactionMembers
            case .notification: Self.notificationMembers
            }
        }

        // Built once: the kind of every JWS found on its own is decided from them.
        private static let transactionMembers = [
            "transactionId", "originalTransactionId", "bundleId", "productId", "purchaseDate",
        ]
        private static let renewalInfoMembers = ["originalTransactionId", "autoRenewProductId", "autoRenewStatus"]
        private static let appTransactionMembers = ["bundleId", "receiptType", "originalApplicationVersion"]
        private static let notificationMembers = ["notificationType", "notificationUUID"]

        /// The required members `payload` lacks; empty when it can be of this kind.
        package func missingMembers(in payload: JSONObject) -> [String] {
            requiredMembers.filter { payload[$0] == nil }
        }

        /// `true` when `payload` has every required member of this kind.
        public func fits(_ payload: JSONObject) -> Bool {
            requiredMembers.allSatisfy { payload[$0] != nil }
        }

        /// The members that say what a payload of this kind is about, without which it is no payload of this kind
        /// even where its kind is known from where it came (Apple's libraries read every member as optional; these
        /// are the ones nothing can be recorded without).
        package var identifyingMembers: [String] {
            switch self {
            case .transaction: ["transactionId", "originalTransactionId"]
            case .renewalInfo: ["originalTransactionId"]
            case .appTransaction: ["bundleId"]
            case .notification: ["notificationType", "notificationUUID"]
            }
        }

        /// Why `payload`, found where a payload of this kind belongs, is not one: it lacks an identifying member,
        /// or it has every required member of another kind (a JWS of one kind put in another's place). `nil` when
        /// it can be one.
        public func mismatch(in payload: JSONObject) -> String? {
            let missing = identifyingMembers.filter { payload[$0] == nil }
            if !missing.isEmpty { return "it lacks \(missing.joined(separator: ", ")), which every \(self) has" }
            if let other = Kind.guess(payload), other != self { return "it has the members of a \(other)" }
            return nil
        }

        /// The kind of a JWS found on its own, from its members: the one kind whose required members it all has.
        /// Optional members (which Apple adds to several kinds at once, as `appTransactionId`) never decide.
        /// `nil` when no kind or more than one fits: the caller must say what it is.
        package static func guess(_ payload: JSONObject) -> Kind? {
            var found: Kind?
            for kind in allCases where kind.fits(payload) {
                guard found == nil else { return nil }
                found = kind
            }
            return found
        }
    }

    /// Reads `payload` as a payload of `kind`, whatever members it has (``Kind/missingMembers(in:)`` says whether
    /// it can be one).
    public init(_ payload: JSONObject, kind: Kind) {
        switch kind {
        case .transaction: self = .transaction(JWSTransaction(fields: payload))
        case .renewalInfo: self = .renewalInfo(JWSRenewalInfo(fields: payload))
        case .appTransaction: self = .appTransaction(JWSAppTransaction(fields: payload))
        case .notification: self = .notification(NotificationV2(fields: payload))
        }
    }

    /// Reads a JWS found on its own by ``Kind/guess(_:)``; `nil` when no single kind fits.
    public init?(guessing payload: JSONObject) {
        guard let kind = Kind.guess(payload) else { return nil }
        self.init(payload, kind: kind)
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

    /// The members Apple does not document for this kind (kept as signed).
    public var undocumentedMembers: [String] {
        switch self {
        case .transaction(let value): value.undocumentedMembers
        case .renewalInfo(let value): value.undocumentedMembers
        case .appTransaction(let value): value.undocumentedMembers
        case .notification(let value): value.undocumentedMembers
        }
    }

    /// When Apple signed it: `signedDate` (an app transaction: `receiptCreationDate`, unless it has a `signedDate`).
    public var signedDate: ReceiptDate? {
        switch self {
        case .appTransaction(let value): value.signedDate ?? value.receiptCreationDate
        default: fields.milliseconds("signedDate")
        }
    }

    /// The environment it names (`Production`, `Sandbox`, `Xcode`, `LocalTesting`), as signed.
    public var environment: AppleEnumeration<JWSEnvironment>? {
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
