public import BER

/// Why bytes are not a compact JWS this package reads, with a stable code.
public struct JWSError: CodedError {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Not three base64url segments, a header or payload that is not a JSON object, a header member of the
        /// wrong type, a certificate that is not base64.
        public static let malformed = Code("jws.malformed")
        /// Larger than ``CompactJWS/maximumSize``, or more certificates than ``CompactJWS/maximumCertificates``.
        public static let tooLarge = Code("jws.too_large")

        public var description: String { name }
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }
}
