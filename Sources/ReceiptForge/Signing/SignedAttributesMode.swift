/// Whether a minted `SignerInfo` carries `signedAttrs` (RFC 5652 §5.3), and whether they are honest.
public enum SignedAttributesMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// No signed attributes: the signature covers the content directly, as in every Apple receipt.
    case none
    /// `contentType` and a correct `messageDigest`; the signature covers their DER `SET OF`
    /// (RFC 5652 §5.4).
    case standard
    /// As `standard`, but `messageDigest` is not the content's digest while the signature over the
    /// attributes is genuine: a verifier must compare the digest itself.
    case wrongMessageDigest
}
