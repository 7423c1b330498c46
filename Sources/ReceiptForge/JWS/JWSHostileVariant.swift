/// A deliberately wrong JWS the forge makes from a valid one: each case changes one thing (the algorithm, the key,
/// the `x5c` chain, the bytes), so a verifier must reject it for that one reason.
///
/// The raw values are the names request files use (`"variant": "alg-none"`).
package enum JWSHostileVariant: String, Hashable, Sendable, Codable, CaseIterable {
    /// `alg` `none` and an empty signature segment (RFC 7518 §3.6): "trust me".
    case algorithmNone = "alg-none"
    /// `alg` HS256 keyed with the leaf's public key (its DER `SubjectPublicKeyInfo`): the algorithm-confusion forgery
    /// anyone holding the certificate can make.
    case hs256KeyedWithPublicKey = "hs256-public-key"
    /// `alg` RS256, signed by the RSA receipt-signing test leaf, whose chain (`test-leaf`, `test-intermediate`,
    /// `test-root`) is in `x5c`.
    case rs256 = "rs256"
    /// Genuinely signed, then one payload byte changed: the last decimal digit, so the payload still decodes.
    case tamperedPayload = "tampered-payload"
    /// The `x5c` leaf replaced by another genuine, marked leaf under the same intermediate; the original key signs.
    case swappedLeaf = "swapped-leaf"
    /// `x5c` as intermediate, leaf, root: certificate 0 is no longer the signer.
    case reorderedCertificates = "reordered-x5c"
    /// `x5c` as leaf, root, intermediate: the signer stays first, and every certificate of the path is there.
    case rootBeforeIntermediate = "x5c-root-before-intermediate"
    /// Signed by a leaf under the trusted intermediate that lacks the leaf marker 1.2.840.113635.100.6.11.1.
    case leafWithoutMarker = "leaf-without-marker"
    /// Signed by a marked leaf under a CA that lacks the intermediate marker 1.2.840.113635.100.6.2.1.
    case intermediateWithoutMarker = "intermediate-without-marker"
    /// Signed by a marked leaf valid 2015–2016 only: expired at any 2020s `signedDate`.
    case expiredLeaf = "expired-leaf"
    /// A complete, marked chain to an unrelated root that is never trusted.
    case wrongRoot = "wrong-root"
    /// As Xcode signs StoreKit testing JWS: `kid` `Apple_Xcode_Key`, `x5c` one self-signed P-256 certificate
    /// ("StoreKit Testing in Xcode"). The payload's environment is the description's (say `Xcode`).
    case xcodeSigned = "xcode-signed"
    /// No `x5c` at all; the trusted leaf's key signs.
    case noCertificates = "no-x5c"
    /// `x5c` with leaf and intermediate only; the trusted leaf's key signs.
    case twoCertificates = "two-certificates"
    /// Header and payload only: two segments, no signature segment.
    case twoSegments = "malformed-two-segments"
    /// The signature segment in standard base64 with its `==` padding (64 bytes always pad): not base64url.
    case signatureNotBase64URL = "malformed-signature-not-base64url"
}
