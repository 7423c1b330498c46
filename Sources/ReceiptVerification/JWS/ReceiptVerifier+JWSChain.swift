internal import BER
internal import ReceiptCrypto
internal import ReceiptModel

extension ReceiptVerifier {
    /// The curves a JWS chain's keys may be on: P-256 (Apple's leaves) and P-384 (Apple Root CA - G3, WWDR G6).
    static let jwsCurves: Set<ASN1ObjectIdentifier> = [.secp256r1, .secp384r1]
    /// The cache key part that keeps JWS chains apart from receipt chains with the same certificates.
    static let jwsChainTag: ArraySlice<UInt8> = Array("jws-x5c".utf8)[...]

    /// Validates a JWS's `x5c` chain at `instant` (seconds since 1970; `nil`: everything but validity periods)
    /// and returns the leaf's key for the signature check when the leaf is usable at all. In steps: the shape of
    /// `x5c`, the cache, parsing (`parseJWSCertificates(_:)`), the path and its markers
    /// (`validateJWSPath(_:at:)`), and what the cache may keep.
    func evaluateJWSChain(_ jws: CompactJWS, environment: ReceiptEnvironment?, at instant: Int64?) -> ChainEvaluation {
        guard let certificates = jws.certificates, !certificates.isEmpty else {
            return ChainEvaluation(
                reasons: [Reason(.jwsCertificatesMissing, "jws: the header has no x5c certificate chain")])
        }
        if certificates.count == 1 {
            return evaluateXcodeJWSCertificate(certificates[0], environment: environment, at: instant)
        }
        guard certificates.count == 3 else {
            return ChainEvaluation(
                reasons: [
                    Reason(
                        .jwsCertificatesMissing,
                        "jws: x5c holds \(certificates.count) certificates; Apple sends leaf, intermediate and root")
                ])
        }
        var parts: [ArraySlice<UInt8>] = [anchorIdentity[...], Self.jwsChainTag]
        parts += certificates.map { $0[...] }
        let key = VerifiedChainCache.Key(parts: parts)
        if let instant, let cached = cache.lookup(key, at: instant) {
            return ChainEvaluation(
                signerKey: cached.signerKey, leafValidity: (cached.leafNotBefore, cached.leafNotAfter),
                subjects: cached.subjects)
        }
        let (parsed, refusal) = Self.parseJWSCertificates(certificates)
        if let refusal { return ChainEvaluation(reasons: [refusal]) }
        var evaluation = validateJWSPath(parsed, at: instant)
        // Only a chain whose every check passed, validated at a known instant, is offered to the cache.
        guard let signerKey = evaluation.chain.signerKey, let instant, let last = evaluation.path.last else {
            return evaluation.chain
        }
        let leaf = parsed[0]
        let verified = VerifiedChain(
            signerKey: signerKey, leafNotBefore: leaf.notBefore, leafNotAfter: leaf.notAfter,
            windowStart: evaluation.path.map(\.notBefore).max() ?? last.notBefore,
            windowEnd: evaluation.path.map(\.notAfter).min() ?? last.notAfter, subjects: evaluation.chain.subjects,
            anchoredAtXcode: false)
        if verified.covers(instant) { evaluation.chain.verified = (key, verified) }
        return evaluation.chain
    }

    /// A cache miss's first step: refuse any key but a named P-256 or P-384 one before OpenSSL decodes it, then
    /// parse every certificate. Returns the certificates, leaf first, or the reason the first bad one is refused.
    static func parseJWSCertificates(_ certificates: [[UInt8]]) -> (parsed: [Certificate], refusal: Reason?) {
        for (position, der) in certificates.enumerated() {
            if let reason = jwsKeyReason(der[...], name: "x5c certificate \(position)") {
                return ([], reason)
            }
        }
        var parsed: [Certificate] = []
        for (position, der) in certificates.enumerated() {
            do {
                parsed.append(try Certificate(derEncoded: der[...]))
            } catch {
                return ([], Reason(.jwsMalformed, "jws: x5c certificate \(position) does not parse: \(error)"))
            }
        }
        return (parsed, nil)
    }

    /// A cache miss's second step: `x5c`'s order, the path to a pinned root (which must be `x5c` itself), Apple's
    /// marker extensions and the leaf's P-256 key. The evaluation has the signer's key only when all of them pass;
    /// the path is what validated, for the cache's validity window.
    func validateJWSPath(_ parsed: [Certificate], at instant: Int64?) -> (
        chain: ChainEvaluation, path: [Certificate]
    ) {
        let leaf = parsed[0]
        var evaluation = ChainEvaluation(leafValidity: (leaf.notBefore, leaf.notAfter))
        if let reason = Self.x5cOrderReason(parsed) {
            evaluation.reasons = [reason]
            return (evaluation, [])
        }
        // The root travels in x5c too: it anchors only when pinned.
        let validation = validatePath(leaf: leaf, embedded: parsed, at: instant)
        evaluation.subjects = validation.subjects
        guard validation.reasons.isEmpty else {
            evaluation.reasons = validation.reasons
            return (evaluation, [])
        }
        let path = validation.path
        // OpenSSL builds a path from whatever certificates it is given; Apple's is exactly x5c, in order.
        guard path.map(\.derEncoded) == parsed.map(\.derEncoded) else {
            evaluation.reasons = [
                Reason(
                    .chainUntrustedRoot,
                    "chain: the path validated through the trusted root \(path.last?.subject ?? "(none)"), not through x5c's own last certificate (\(parsed[2].subject), other bytes)"
                )
            ]
            return (evaluation, [])
        }
        if path.last?.sha256Fingerprint == configuration.trustAnchors.xcodeTestingFingerprint {
            evaluation.reasons = [Self.xcodeIssuerReason]
            return (evaluation, [])
        }
        evaluation.reasons = Self.markerReasons(path: path, isComplete: true)
        guard evaluation.reasons.isEmpty else { return (evaluation, []) }
        guard leaf.publicKey.isP256 else {
            evaluation.reasons = [
                Reason(.chainKeyRejected, "chain: the leaf \(leaf.subject) has no P-256 key, which ES256 needs")
            ]
            return (evaluation, [])
        }
        evaluation.signerKey = leaf.publicKey
        return (evaluation, path)
    }

    /// Why `x5c` is not leaf, intermediate, root in that order (RFC 7515 §4.1.6: each certificate certifies the one
    /// before it; Apple sends exactly these three): each certificate's issuer must be the next one's subject and
    /// the last must be self-issued. Checked on the names, before any signature, so every other order is
    /// `jws.x5c_order` whatever else is wrong with it.
    static func x5cOrderReason(_ certificates: [Certificate]) -> Reason? {
        for position in certificates.indices.dropLast()
        where certificates[position].issuerDER != certificates[position + 1].subjectDER {
            return Reason(
                .jwsX5COrder,
                "jws: x5c certificate \(position) (\(certificates[position].subject)) is not issued by certificate \(position + 1) (\(certificates[position + 1].subject)); Apple sends leaf, intermediate, root in that order"
            )
        }
        if let root = certificates.last, !root.isSelfIssued {
            return Reason(
                .jwsX5COrder,
                "jws: the last x5c certificate (\(root.subject)) is not a self-issued root; Apple sends leaf, intermediate, root in that order"
            )
        }
        return nil
    }

    /// One self-signed certificate: how Xcode signs StoreKit testing JWS (`kid` `Apple_Xcode_Key`), with a key
    /// made on the developer's machine. Trusted only with the Xcode opt-in and only for an `Xcode` payload; even
    /// then it proves the payload unmodified since Xcode signed it, not that Apple did.
    private func evaluateXcodeJWSCertificate(_ der: [UInt8], environment: ReceiptEnvironment?, at instant: Int64?)
        -> ChainEvaluation
    {
        guard configuration.trustAnchors.allowsXcodeStoreKitTesting, environment == .xcode else {
            return ChainEvaluation(
                reasons: [
                    Reason(
                        .chainUntrustedRoot,
                        "chain: signed by a lone self-signed certificate (Xcode's StoreKit testing key); trusted only with the Xcode opt-in and an Xcode payload"
                    )
                ])
        }
        if let reason = Self.jwsKeyReason(der[...], name: "x5c certificate 0") {
            return ChainEvaluation(reasons: [reason])
        }
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: der[...])
        } catch {
            return ChainEvaluation(reasons: [Reason(.jwsMalformed, "jws: x5c certificate 0 does not parse: \(error)")])
        }
        guard certificate.isSigned(by: certificate), certificate.publicKey.isP256 else {
            return ChainEvaluation(
                reasons: [
                    Reason(
                        .chainUntrustedRoot,
                        "chain: \(certificate.subject) is not a self-signed P-256 certificate as Xcode makes")
                ])
        }
        if let instant, !certificate.isValid(at: instant) {
            let kind: Reason.Code = instant < certificate.notBefore ? .chainNotYetValid : .chainExpired
            return ChainEvaluation(
                reasons: [Reason(kind, "chain: \(certificate.subject) is not valid at the validation time")])
        }
        return ChainEvaluation(
            signerKey: certificate.publicKey, leafValidity: (certificate.notBefore, certificate.notAfter),
            subjects: [certificate.subject], anchoredAtXcode: true)
    }

    /// Why the certificate `der`'s key is not one a JWS chain uses (a named P-256 or P-384 curve), read with the
    /// package's own parser before OpenSSL decodes anything.
    static func jwsKeyReason(_ der: ArraySlice<UInt8>, name: String) -> Reason? {
        guard der.count <= maximumCertificateSize else {
            return Reason(
                .chainTooLarge, "chain: \(name) has \(der.count) bytes; at most \(maximumCertificateSize) are read")
        }
        let info: SubjectPublicKeyInfo
        do {
            info = try SubjectPublicKeyInfo(certificate: der)
        } catch {
            return Reason(.jwsMalformed, "jws: \(name) is not a certificate: \(error)")
        }
        guard let curve = info.namedCurve, jwsCurves.contains(curve) else {
            return Reason(
                .chainKeyRejected,
                "chain: \(name) has a \(info.algorithm) key; Apple signs JWS with EC keys on P-256 and P-384")
        }
        return nil
    }
}
