public import BER

/// Why webhook delivery could not be set up or an event could not be signed. `code` is stable; ``reason`` never
/// contains a secret or an event's body.
///
/// How a delivery *attempt* ended is not an error: it is a ``WebhookAttempt`` (and a settlement in the ledger).
public struct WebhookError: CodedError {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case invalidURL = "webhook.invalid_url"
            case invalidSecret = "webhook.invalid_secret"
            case invalidSetting = "webhook.invalid_setting"
            case signingFailed = "webhook.signing_failed"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The receiver's URL is not an `http://` or `https://` URL with a host.
        public static let invalidURL = Code(.invalidURL)
        /// No secret, or an empty one.
        public static let invalidSecret = Code(.invalidSecret)
        /// A timeout, age, backoff, concurrency or interval outside what delivery can work with.
        public static let invalidSetting = Code(.invalidSetting)
        /// OpenSSL could not compute the HMAC.
        public static let signingFailed = Code(.signingFailed)

        public var description: String { kind.rawValue }
    }

    public let code: Code
    /// What went wrong, in words.
    public let reason: String
    public let file: String
    public let line: UInt

    public init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }
}
