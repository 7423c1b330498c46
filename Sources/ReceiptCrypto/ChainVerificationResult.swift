/// What OpenSSL's X.509 path validation (RFC 5280 §6) concluded for one chain at one instant.
///
/// Failures are mapped from `X509_STORE_CTX_get_error` to the few kinds a receipt verdict
/// distinguishes; the OpenSSL error number and text are kept for messages.
package struct ChainVerificationResult: Sendable {
    /// Why a path did not validate.
    package enum Failure: String, Sendable, Hashable {
        /// A certificate's notAfter is before the validation time.
        case expired
        /// A certificate's notBefore is after the validation time.
        case notYetValid
        /// The path ends at a self-signed certificate that is not among the anchors.
        case untrustedRoot
        /// A certificate's issuer is neither among the given certificates nor an anchor, and no certificate
        /// bearing the issuer's name is present: the path cannot be completed from what was given.
        case issuerMissing
        /// A certificate's signature does not verify with its issuer's key.
        case invalidSignature
        /// A certificate used as an issuer is not a CA (basicConstraints, pathLen).
        case notACA
        /// Any other path-validation failure (bad time field, unhandled critical extension, purpose, …).
        case other
    }

    /// `nil` when the path validated.
    package let failure: Failure?
    /// The depth in the chain OpenSSL reported the error at (0 = leaf); 0 when verified.
    package let depth: Int
    /// The raw `X509_V_ERR_*` value (0 = `X509_V_OK`).
    package let openSSLError: Int32
    /// OpenSSL's text for ``openSSLError``.
    package let message: String
    /// The certificates of the path OpenSSL built, leaf first (partial when validation failed).
    package let chain: [Certificate]

    /// The subjects (RFC 2253) of ``chain``, leaf first.
    package var subjects: [String] { chain.map(\.subject) }

    /// `true` when the path validated.
    package var isVerified: Bool { failure == nil }
}
