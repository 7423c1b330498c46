/// Who signs a JWS and what its header says: the algorithm, the optional `kid`, the `x5c` certificates (test-PKI
/// names, leaf first) and the key.
struct JWSSigningPlan: Hashable, Sendable {
    /// The key that makes the signature segment.
    enum Key: Hashable, Sendable {
        /// The test-only private key `test-only-keys/NAME.key.pem`.
        case named(String)
        /// HMAC keyed with the DER `SubjectPublicKeyInfo` of the named key's public half.
        case hmacOfPublicKey(String)
        /// No key: the signature segment is empty.
        case none
    }

    /// The trusted JWS chain's certificate names, leaf first (`scripts/make-test-pki`).
    static let trustedChain = ["test-jws-leaf", "test-jws-intermediate", "test-jws-root"]

    var algorithm: String
    var keyID: String?
    var certificates: [String]?
    var key: Key

    /// The plan of a valid JWS (no variant) or of `variant`.
    init(variant: JWSHostileVariant?) {
        let chain = Self.trustedChain
        let leaf = chain[0]
        algorithm = "ES256"
        keyID = nil
        certificates = chain
        key = .named(leaf)
        switch variant {
        case nil, .tamperedPayload, .twoSegments, .signatureNotBase64URL:
            break
        case .algorithmNone:
            algorithm = "none"
            key = .none
        case .hs256KeyedWithPublicKey:
            algorithm = "HS256"
            key = .hmacOfPublicKey(leaf)
        case .rs256:
            algorithm = "RS256"
            certificates = ["test-leaf", "test-intermediate", "test-root"]
            key = .named("test-leaf")
        case .swappedLeaf:
            certificates = ["test-jws-leaf-other-key", chain[1], chain[2]]
        case .reorderedCertificates:
            certificates = [chain[1], chain[0], chain[2]]
        case .rootBeforeIntermediate:
            certificates = [chain[0], chain[2], chain[1]]
        case .leafWithoutMarker:
            certificates = ["test-jws-leaf-no-marker", chain[1], chain[2]]
            key = .named("test-jws-leaf-no-marker")
        case .intermediateWithoutMarker:
            certificates = ["test-jws-leaf-under-unmarked-intermediate", "test-jws-intermediate-no-marker", chain[2]]
            key = .named("test-jws-leaf-under-unmarked-intermediate")
        case .expiredLeaf:
            certificates = ["test-jws-leaf-expired", chain[1], chain[2]]
            key = .named("test-jws-leaf-expired")
        case .wrongRoot:
            certificates = ["other-jws-leaf", "other-jws-intermediate", "other-jws-root"]
            key = .named("other-jws-leaf")
        case .xcodeSigned:
            keyID = "Apple_Xcode_Key"
            certificates = ["xcode-storekit-testing"]
            key = .named("xcode-storekit-testing")
        case .noCertificates:
            certificates = nil
        case .twoCertificates:
            certificates = [chain[0], chain[1]]
        }
    }
}
