public import BER

/// An error from the receipt forge: a description, certificate or key it was handed cannot be used.
///
/// `code` is stable and compared for equality; `reason` says what was wrong in words. Hostile
/// receipts are not errors: the forge makes them on purpose and returns their bytes.
public struct ForgeError: CodedError {
    /// A stable identifier of the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case invalidBytes = "forge.invalid_bytes"
            case invalidCertificate = "forge.invalid_certificate"
            case invalidKey = "forge.invalid_key"
            case signingFailed = "forge.signing_failed"
            case invalidRequest = "forge.invalid_request"
            case fileUnreadable = "forge.file_unreadable"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// Hex or base64 text in a description is not valid.
        public static let invalidBytes = Code(.invalidBytes)
        /// A certificate is not PEM or not a well-formed X.509 certificate.
        public static let invalidCertificate = Code(.invalidCertificate)
        /// A private key cannot be parsed.
        public static let invalidKey = Code(.invalidKey)
        /// Hashing or signing failed in the crypto layer.
        public static let signingFailed = Code(.signingFailed)
        /// A mint request asks for something inconsistent (no receipt for an app receipt, …).
        public static let invalidRequest = Code(.invalidRequest)
        /// A certificate, key or description file cannot be read.
        public static let fileUnreadable = Code(.fileUnreadable)

        /// The code as a dotted string, e.g. `forge.invalid_key`.
        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let reason: String
    public let file: String
    public let line: UInt

    init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

}
