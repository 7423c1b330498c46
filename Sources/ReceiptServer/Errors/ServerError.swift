public import BER
public import ReceiptIntake

/// Why the server refused a request before verifying anything: unreadable JSON, bad base64, a body
/// too large or too slow, a media type it does not read, too much work in flight, or bad configuration.
///
/// Verification outcomes are never errors (they are `AttributedVerdict` values); this type covers only the
/// request itself and the server's setup. `code` is stable and compared for equality. The routes throw it
/// as their refusal: it is a Hummingbird `HTTPResponseError` (`ServerError+HTTP.swift`), wrapped on the
/// verifyReceipt routes in a ``VerifyReceiptRefusal`` that answers Apple's way.
public struct ServerError: CodedError {
    /// A stable identifier of the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case invalidJSON = "server.invalid_json"
            case missingReceiptData = "server.missing_receipt_data"
            case invalidBase64 = "server.invalid_base64"
            case invalidOption = "server.invalid_option"
            case sharedSecretMismatch = "server.shared_secret_mismatch"
            case bodyTooLarge = "server.body_too_large"
            case bodyTimeout = "server.body_timeout"
            case incompleteBody = "server.incomplete_body"
            case unsupportedMediaType = "server.unsupported_media_type"
            case overloaded = "server.overloaded"
            case invalidConfiguration = "server.invalid_configuration"
            case ledgerUnavailable = "ledger.unavailable"
            case ledgerDisabled = "ledger.disabled"
            case transactionNotFound = "ledger.transaction_not_found"
            case notificationRejected = "notification.rejected"
            case bundleIDRequired = "server.bundle_id_required"
            case missingNotification = "notification.missing_payload"
            case unauthorized = "server.unauthorized"
            case forbidden = "server.forbidden"
            case duplicateMember = "server.duplicate_member"
            case digestFailed = "intake.digest_failed"
            case unknownApp = "server.unknown_bundle_id"
            case serverAPIDisabled = "server_api.disabled"
            case serverAPIFailed = "server_api.failed"
            case serverAPINotFound = "server_api.not_found"
            case receiptNotVerified = "sync.receipt_not_verified"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The body is not one JSON object (RFC 8259), or a field has the wrong JSON type.
        public static let invalidJSON = Code(.invalidJSON)
        /// The JSON object has no receipt data field.
        public static let missingReceiptData = Code(.missingReceiptData)
        /// The receipt data is not base64 text (RFC 4648).
        public static let invalidBase64 = Code(.invalidBase64)
        /// An option has a value the server does not understand.
        public static let invalidOption = Code(.invalidOption)
        /// A shared secret is configured and the request's `password` differs (verifyReceipt's 21004).
        public static let sharedSecretMismatch = Code(.sharedSecretMismatch)
        /// The body is larger than the configured limit.
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// The body did not arrive within the configured time.
        public static let bodyTimeout = Code(.bodyTimeout)
        /// The connection failed or closed before the whole body arrived.
        public static let incompleteBody = Code(.incompleteBody)
        /// The request's `Content-Type` is not one the endpoint reads.
        public static let unsupportedMediaType = Code(.unsupportedMediaType)
        /// More requests are being verified than the configured bound.
        public static let overloaded = Code(.overloaded)
        /// A flag or environment variable has a value the server cannot use.
        public static let invalidConfiguration = Code(.invalidConfiguration)

        /// The ledger's store failed or could not be reached: nothing of the request was recorded, and its
        /// answer is withheld (a verification is never answered without its ledger write).
        public static let ledgerUnavailable = Code(.ledgerUnavailable)
        /// A ledger route was called on a server running without a ledger (`--ledger none`).
        public static let ledgerDisabled = Code(.ledgerDisabled)
        /// `GET /v1/transactions/{id}` for an id the ledger does not hold.
        public static let transactionNotFound = Code(.transactionNotFound)

        /// An App Store Server Notification that failed verification (V2: its JWS or a nested one; V1: its
        /// `latest_receipt`), or a V1 notification the server cannot authenticate: nothing of it was applied.
        public static let notificationRejected = Code(.notificationRejected)
        /// JWS and notifications change what the ledger holds, so the server takes them only for the apps it is
        /// configured for (`--bundle-id`), as Apple's own libraries require a bundle id to verify JWS.
        public static let bundleIDRequired = Code(.bundleIDRequired)
        /// A notification body with neither `signedPayload` (V2) nor `notification_type` (V1).
        public static let missingNotification = Code(.missingNotification)

        /// A `/v1` route that reads or binds ledger state, called without `Authorization: Bearer <token>` (HTTP 401).
        public static let unauthorized = Code(.unauthorized)
        /// The same with a token that is not one of `RECEIPT_SERVER_API_TOKENS`, or on a server that has none and
        /// listens beyond loopback (HTTP 403).
        public static let forbidden = Code(.forbidden)
        /// A JSON body that names a member the endpoint reads more than once (`receipt-data`, `account`,
        /// `password`, `signedPayload`, …): which one was meant cannot be known, so the body is refused (HTTP 400).
        public static let duplicateMember = Code(.duplicateMember)
        /// A digest the audit trail needs could not be computed (OpenSSL failed): nothing was recorded; HTTP 500.
        public static let digestFailed = Code(.digestFailed)
        /// The request names an app the server is not configured for (`--bundle-id`); HTTP 422.
        public static let unknownApp = Code(.unknownApp)
        /// `/v1/sync` on a server without an App Store Server API key; HTTP 404.
        public static let serverAPIDisabled = Code(.serverAPIDisabled)
        /// The App Store Server API gave no usable answer (the message names the client's `remote.…` code); HTTP 502.
        public static let serverAPIFailed = Code(.serverAPIFailed)
        /// The App Store Server API knows the transaction id in no environment; HTTP 404.
        public static let serverAPINotFound = Code(.serverAPINotFound)
        /// `/v1/sync` with a receipt that is not valid: Apple was not asked; HTTP 422.
        public static let receiptNotVerified = Code(.receiptNotVerified)

        /// The code as a dotted string, e.g. `server.invalid_json`.
        public var description: String { kind.rawValue }
    }

    /// The stable code.
    public let code: Code
    /// What was wrong, in words; never contains receipt data or secrets.
    public let reason: String
    public let file: String
    public let line: UInt

    public init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// The intake's refusal, answered with the same code and message.
    public init(_ error: IntakeError, file: String = #fileID, line: UInt = #line) {
        let code: Code =
            switch error.code {
            case .overloaded: .overloaded
            case .sharedSecretMismatch: .sharedSecretMismatch
            case .invalidBase64: .invalidBase64
            case .bundleIDRequired: .bundleIDRequired
            case .ledgerUnavailable: .ledgerUnavailable
            case .ledgerDisabled: .ledgerDisabled
            case .notificationRejected: .notificationRejected
            case .unknownApp: .unknownApp
            case .serverAPIDisabled: .serverAPIDisabled
            case .serverAPIFailed: .serverAPIFailed
            case .transactionNotFound: .serverAPINotFound
            case .receiptNotVerified: .receiptNotVerified
            default: .digestFailed
            }
        self.init(code, error.reason, file: file, line: line)
    }
}
