internal import ReceiptCrypto

/// A certificate path that validated once, kept so later receipts signed through the same chain need
/// only a digest and one RSA verification.
///
/// Path validation depends on the instant only through the certificates' validity periods, so the
/// result holds for every instant in [``windowStart``, ``windowEnd``) (the latest notBefore and the
/// earliest notAfter of the path, RFC 5280 §6.1.3 (a)(2), with OpenSSL's exclusive end).
final class VerifiedChain: Sendable {
    /// The signer (leaf) certificate's key, parsed once.
    let signerKey: PublicKey
    /// The leaf's validity, for the creation-date check.
    let leafNotBefore: Int64
    let leafNotAfter: Int64
    /// The instants (seconds since 1970) for which the whole path validates.
    let windowStart: Int64
    let windowEnd: Int64
    /// The path's subjects, leaf first.
    let subjects: [String]
    /// `true` when the path ends at Xcode's StoreKit Testing certificate.
    let anchoredAtXcode: Bool

    init(
        signerKey: PublicKey, leafNotBefore: Int64, leafNotAfter: Int64, windowStart: Int64, windowEnd: Int64,
        subjects: [String], anchoredAtXcode: Bool
    ) {
        self.signerKey = signerKey
        self.leafNotBefore = leafNotBefore
        self.leafNotAfter = leafNotAfter
        self.windowStart = windowStart
        self.windowEnd = windowEnd
        self.subjects = subjects
        self.anchoredAtXcode = anchoredAtXcode
    }

    /// `true` when every certificate of the path is valid at `instant`, by the same rule OpenSSL applies
    /// (``ReceiptCrypto/Certificate/validity(notBefore:notAfter:contains:)``): a hit answers exactly what a
    /// fresh validation would.
    func covers(_ instant: Int64) -> Bool {
        Certificate.validity(notBefore: windowStart, notAfter: windowEnd, contains: instant)
    }
}
