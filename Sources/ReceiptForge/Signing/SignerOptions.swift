/// One `SignerInfo` to add to a minted `SignedData`.
public struct SignerOptions: Sendable {
    /// The certificate the `SignerInfo` names and the key that signs.
    public var identity: SigningIdentity
    /// Whether to add signed attributes.
    public var signedAttributes: SignedAttributesMode

    /// A signer.
    public init(identity: SigningIdentity, signedAttributes: SignedAttributesMode = .none) {
        self.identity = identity
        self.signedAttributes = signedAttributes
    }
}
