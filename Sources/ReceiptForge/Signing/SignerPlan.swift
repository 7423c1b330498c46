/// A signer named by test-PKI file names, as written in a ``MintRequest``.
public struct SignerPlan: Hashable, Sendable, Codable {
    /// The certificate the `SignerInfo` names (`certs/NAME.pem`).
    public var certificate: String
    /// The key that signs (`certs/test-only-keys/NAME.key.pem`); `nil` is the certificate's own.
    public var key: String?
    /// Signed attributes; `nil` is ``SignedAttributesMode/none``.
    public var signedAttributes: SignedAttributesMode?

    public init(certificate: String, key: String? = nil, signedAttributes: SignedAttributesMode? = nil) {
        self.certificate = certificate
        self.key = key
        self.signedAttributes = signedAttributes
    }
}
