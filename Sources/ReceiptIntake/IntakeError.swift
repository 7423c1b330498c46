public import BER

/// Why the intake did not answer a call: a refusal the caller turns into its transport's answer (the server's
/// HTTP status and error body). A verdict about a receipt or a JWS is never an error: it is the answer.
public struct IntakeError: CodedError {
    /// A stable code. The server answers each with the same code (`ServerError`), so the strings are the wire's.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case overloaded = "server.overloaded"
            case sharedSecretMismatch = "server.shared_secret_mismatch"
            case invalidBase64 = "server.invalid_base64"
            case bundleIDRequired = "server.bundle_id_required"
            case ledgerUnavailable = "ledger.unavailable"
            case ledgerDisabled = "ledger.disabled"
            case notificationRejected = "notification.rejected"
            case digestFailed = "intake.digest_failed"
            case unknownApp = "server.unknown_bundle_id"
            case serverAPIDisabled = "server_api.disabled"
            case serverAPIFailed = "server_api.failed"
            case transactionNotFound = "server_api.not_found"
            case receiptNotVerified = "sync.receipt_not_verified"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// Every verification slot is taken (``InFlightLimiter``): try again shortly.
        public static let overloaded = Code(.overloaded)
        /// The call's password is not the operator's shared secret.
        public static let sharedSecretMismatch = Code(.sharedSecretMismatch)
        /// Text that should be base64 is not: a transport mistake, not a verdict about a receipt.
        public static let invalidBase64 = Code(.invalidBase64)
        /// StoreKit 2 JWS and notifications change the ledger; the operator has configured no app for them.
        public static let bundleIDRequired = Code(.bundleIDRequired)
        /// The ledger could not record or read: nothing is answered that the ledger does not hold.
        public static let ledgerUnavailable = Code(.ledgerUnavailable)
        /// The call needs a ledger and there is none.
        public static let ledgerDisabled = Code(.ledgerDisabled)
        /// A notification that does not verify, or that the operator's rules refuse.
        public static let notificationRejected = Code(.notificationRejected)
        /// OpenSSL could not compute a digest the audit entry needs: nothing is recorded, nothing answered.
        public static let digestFailed = Code(.digestFailed)
        /// The call names an app the operator has not configured (`--bundle-id`), or names none where several are.
        public static let unknownApp = Code(.unknownApp)
        /// The call needs the App Store Server API and the operator has not configured it (no key).
        public static let serverAPIDisabled = Code(.serverAPIDisabled)
        /// The App Store Server API gave no usable answer (unreachable, rate limited past the deadline, refused the
        /// key, a malformed answer); the reason names the client's code (`remote.…`). Nothing of the answer was
        /// recorded (a sync's receipt verification keeps its audit entry; a backfill keeps what it applied before).
        public static let serverAPIFailed = Code(.serverAPIFailed)
        /// The App Store Server API knows the transaction id in no environment tried.
        public static let transactionNotFound = Code(.transactionNotFound)
        /// A receipt given to sync from is not valid: nothing of it is trusted, Apple is not asked.
        public static let receiptNotVerified = Code(.receiptNotVerified)

        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
