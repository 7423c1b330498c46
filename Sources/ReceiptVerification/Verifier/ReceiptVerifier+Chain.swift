internal import ReceiptCrypto
internal import ReceiptModel

extension ReceiptVerifier {
    /// What the chain check found: the signer's key (whenever the signer certificate was found and its key is
    /// one Apple's chains use, so the signature can still be checked), the leaf's validity, the path and any
    /// failures, and the entry to remember should the creation date and the signature verify too.
    struct ChainEvaluation {
        var signerKey: PublicKey?
        var leafValidity: (notBefore: Int64, notAfter: Int64)?
        var subjects: [String] = []
        var anchoredAtXcode = false
        var reasons: [Reason] = []
        /// A freshly validated chain, for the cache. Stored only by the caller, and only once the creation date
        /// and the signature verified too: a forgery that embeds a genuine chain never enters the cache.
        var verified: (key: VerifiedChainCache.Key, chain: VerifiedChain)?
    }

    /// Validates the embedded chain from the signer's certificate to an anchor at `instant` (seconds since
    /// 1970; `nil` checks everything but validity periods), from the cache when this exact chain already
    /// validated at a covered instant.
    func evaluateChain(signedData: SignedData, signer: SignerInfo, at instant: Int64?) -> ChainEvaluation {
        let key = chainKey(signedData: signedData, signer: signer)
        if let instant, let cached = cache.lookup(key, at: instant) {
            return ChainEvaluation(
                signerKey: cached.signerKey, leafValidity: (cached.leafNotBefore, cached.leafNotAfter),
                subjects: cached.subjects, anchoredAtXcode: cached.anchoredAtXcode)
        }

        // Miss. Bound what a hostile receipt can make us parse (d2i_X509 is the expensive step) before parsing
        // anything: Apple embeds 3 certificates of about 1.5 KB, Xcode 1.
        if let reason = Self.sizeReason(signedData.certificates) {
            return ChainEvaluation(reasons: [reason])
        }
        // Refuse keys before OpenSSL decodes them: decoding some keys costs more than any check.
        let screened = signedData.certificates.enumerated().compactMap { position, der in
            Self.keyReason(
                certificateDER: der, name: "embedded certificate \(position)", allowedBits: Self.appReceiptKeyBits)
        }
        guard screened.isEmpty else { return ChainEvaluation(reasons: screened) }
        var certificates: [Certificate] = []
        certificates.reserveCapacity(signedData.certificates.count)
        for (position, der) in signedData.certificates.enumerated() {
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch {
                return ChainEvaluation(
                    reasons: [
                        Reason(.receiptMalformed, "chain: embedded certificate \(position) does not parse: \(error)")
                    ])
            }
        }
        // OpenSSL's reading of the keys must agree with ours before it checks any signature with them.
        let keyReasons = certificates.compactMap { Self.keyReason($0, allowedBits: Self.appReceiptKeyBits) }
        guard keyReasons.isEmpty else { return ChainEvaluation(reasons: keyReasons) }
        guard let leaf = certificates.first(where: { Self.identifies(signer, $0) }) else {
            return ChainEvaluation(
                reasons: [
                    Reason(
                        .signatureSignerCertificateMissing,
                        "signature: no embedded certificate matches the SignerInfo's issuer and serial number")
                ])
        }
        var evaluation = ChainEvaluation(signerKey: leaf.publicKey, leafValidity: (leaf.notBefore, leaf.notAfter))

        let validation = validatePath(leaf: leaf, embedded: certificates, at: instant)
        evaluation.subjects = validation.subjects
        guard validation.reasons.isEmpty else {
            evaluation.reasons = validation.reasons
            return evaluation
        }

        let path = validation.path
        let endsAtXcode = path.last?.sha256Fingerprint == configuration.trustAnchors.xcodeTestingFingerprint
        // The StoreKit Testing certificate is trusted (when opted in) only as the self-signed signer of
        // Xcode receipts. Its key ships with Xcode, so a path it *issues* proves nothing: refuse it, or
        // anyone could mint "Production" receipts under it.
        if endsAtXcode && path.count > 1 {
            evaluation.reasons = [Self.xcodeIssuerReason]
            return evaluation
        }
        let anchoredAtXcode = configuration.trustAnchors.allowsXcodeStoreKitTesting && endsAtXcode
        evaluation.anchoredAtXcode = anchoredAtXcode
        if !anchoredAtXcode {
            evaluation.reasons = Self.markerReasons(path: path, isComplete: true)
        }
        guard evaluation.reasons.isEmpty, let instant, let last = path.last else { return evaluation }

        // RFC 5280 §6.1.3 (a)(2): the path holds for exactly the instants every certificate is valid at.
        let chain = VerifiedChain(
            signerKey: leaf.publicKey, leafNotBefore: leaf.notBefore, leafNotAfter: leaf.notAfter,
            windowStart: path.map(\.notBefore).max() ?? last.notBefore,
            windowEnd: path.map(\.notAfter).min() ?? last.notAfter,
            subjects: evaluation.subjects, anchoredAtXcode: anchoredAtXcode)
        // Validated at `instant`, so the window covers it; a cached hit answers the same as OpenSSL did.
        if chain.covers(instant) { evaluation.verified = (key, chain) }
        return evaluation
    }

    /// Validates `leaf` through the other `embedded` certificates to an anchor: the configured extra roots, and an
    /// embedded certificate whose fingerprint is pinned (any other embedded root stays untrusted, so a path to it
    /// is an untrusted root, not a missing issuer), at `instant`.
    /// - Returns: the path and its subjects; on failure, the reasons that decide it (what a partial path proves
    ///   wrong first, when OpenSSL ran out of issuers).
    func validatePath(leaf: Certificate, embedded: [Certificate], at instant: Int64?)
        -> (path: [Certificate], subjects: [String], reasons: [Reason])
    {
        let anchors = configuration.trustAnchors.additionalRoots + embedded.filter(configuration.trustAnchors.isPinned)
        let result: ChainVerificationResult
        do {
            result = try ChainVerifier.verify(
                leaf: leaf, intermediates: embedded.filter { $0 !== leaf }, anchors: anchors, at: instant)
        } catch {
            return ([], [], [Reason(.internalError, "chain: OpenSSL could not run path validation: \(error)")])
        }
        guard let failure = result.failure else { return (result.chain, result.subjects, []) }
        let proven = failure == .issuerMissing ? provenFailures(inPartialPath: result.chain, at: instant) : []
        return (
            result.chain, result.subjects,
            proven.isEmpty ? [Self.reason(for: failure, result: result, leaf: leaf)] : proven
        )
    }

    /// The most certificates a receipt may embed: Apple's receipts carry 3 (leaf, WWDR intermediate, Apple Root
    /// CA), Xcode's 1. Each one costs a `d2i_X509` and can be a signature check, so this bounds a receipt's cost.
    public static let maximumEmbeddedCertificates = 3
    /// The largest embedded certificate accepted, in bytes. Apple's are 0.9–1.5 KB; a 4,096-bit RSA
    /// certificate with the usual extensions stays under 2 KB.
    public static let maximumCertificateSize = 4096
    /// RSA modulus sizes accepted in an app receipt's chain: Apple's are all 2,048 bits.
    static let appReceiptKeyBits = 2048...4096
    /// The largest RSA public exponent accepted, in bits: 65,537 (F4, what every Apple certificate uses) has 17.
    static let maximumExponentBits = 17

    /// Why the embedded certificates are too many or too large to be read, if they are.
    static func sizeReason(_ certificates: [ArraySlice<UInt8>]) -> Reason? {
        if certificates.count > maximumEmbeddedCertificates {
            return Reason(
                .chainTooLarge,
                "chain: \(certificates.count) embedded certificates; Apple's receipts carry at most \(maximumEmbeddedCertificates)"
            )
        }
        if let large = certificates.firstIndex(where: { $0.count > maximumCertificateSize }) {
            return Reason(
                .chainTooLarge,
                "chain: embedded certificate \(large) has \(certificates[large].count) bytes; at most \(maximumCertificateSize) are read"
            )
        }
        return nil
    }

    /// Why the key of the certificate `der` is not one an Apple receipt chain uses, read with this package's own
    /// parser before OpenSSL decodes anything (``ReceiptModel/SubjectPublicKeyInfo``): `rsaEncryption` with a
    /// modulus in `allowedBits` and a public exponent of at most ``maximumExponentBits`` bits.
    static func keyReason(certificateDER der: ArraySlice<UInt8>, name: String, allowedBits: ClosedRange<Int>) -> Reason?
    {
        let info: SubjectPublicKeyInfo
        do {
            info = try SubjectPublicKeyInfo(certificate: der)
        } catch {
            return Reason(.receiptMalformed, "chain: \(name) is not a certificate: \(error)")
        }
        guard let sizes = info.rsaSizes else {
            return Reason(
                .chainKeyRejected, "chain: \(name) has a \(info.algorithm) key; Apple signs receipts with RSA keys")
        }
        guard allowedBits.contains(sizes.modulusBits), sizes.exponentBits <= maximumExponentBits else {
            return Reason(
                .chainKeyRejected,
                "chain: \(name) has a \(sizes.modulusBits)-bit RSA key with a \(sizes.exponentBits)-bit exponent; accepted are \(allowedBits.lowerBound)–\(allowedBits.upperBound) bits with an exponent of at most 65537"
            )
        }
        return nil
    }

    /// The same bounds on the key as OpenSSL read it (``keyReason(certificateDER:name:allowedBits:)`` read it
    /// first): the two readings must agree before a signature is checked with the key.
    static func keyReason(_ certificate: Certificate, allowedBits: ClosedRange<Int>) -> Reason? {
        let key = certificate.publicKey
        guard key.isRSA, let exponentBits = key.rsaPublicExponentBitCount else {
            return Reason(
                .chainKeyRejected, "chain: \(certificate.subject) has a non-RSA key; Apple signs receipts with RSA keys"
            )
        }
        guard allowedBits.contains(key.bitCount), exponentBits <= maximumExponentBits else {
            return Reason(
                .chainKeyRejected,
                "chain: \(certificate.subject) has a \(key.bitCount)-bit RSA key with a \(exponentBits)-bit exponent; accepted are \(allowedBits.lowerBound)–\(allowedBits.upperBound) bits with an exponent of at most 65537"
            )
        }
        return nil
    }

    /// What the path OpenSSL built before it ran out of issuers proves wrong.
    ///
    /// `X509_verify_cert` stops at a missing issuer without checking the part of the path it did build, and
    /// embedded certificates are not signed, so anyone can leave one out. Without this, removing the root from a
    /// receipt whose leaf had expired, or whose leaf lacks Apple's marker, would turn a provable failure into
    /// `chain.incomplete` (inconclusive) and hand it to Apple. Checked: each certificate's signature by the next
    /// (RFC 5280 §6.1.3 (a)(1)), every validity at `instant` ((a)(2)), that the Xcode StoreKit Testing
    /// certificate issues nothing, and Apple's markers and CA flags as far as the path goes.
    func provenFailures(inPartialPath path: [Certificate], at instant: Int64?, checksMarkers: Bool = true) -> [Reason] {
        var reasons: [Reason] = []
        for (certificate, issuer) in zip(path, path.dropFirst()) where !certificate.isSigned(by: issuer) {
            reasons.append(
                Reason(
                    .chainInvalidSignature,
                    "chain: \(certificate.subject) is not signed by its issuer \(issuer.subject)"))
        }
        for certificate in path {
            guard let instant, !certificate.isValid(at: instant) else { continue }
            if instant < certificate.notBefore {
                reasons.append(
                    Reason(.chainNotYetValid, "chain: \(certificate.subject) was not yet valid at the validation time"))
            } else {
                reasons.append(
                    Reason(.chainExpired, "chain: \(certificate.subject) had expired at the validation time"))
            }
        }
        let xcode = configuration.trustAnchors.xcodeTestingFingerprint
        if path.dropFirst().contains(where: { $0.sha256Fingerprint == xcode }) {
            reasons.append(Self.xcodeIssuerReason)
        }
        return checksMarkers ? reasons + Self.markerReasons(path: path, isComplete: false) : reasons
    }

    /// The StoreKit Testing certificate's key ships with Xcode, so a path it *issues* proves nothing.
    static let xcodeIssuerReason = Reason(
        .chainUntrustedRoot,
        "chain: the Xcode StoreKit Testing certificate is trusted only as a receipt's own signer, not as an issuer")

    /// Apple's marker extensions: the leaf carries 1.2.840.113635.100.6.11.1 and the leaf's issuer (which
    /// must be an intermediate, not the anchor) carries 1.2.840.113635.100.6.2.1; every issuer is a CA.
    ///
    /// A complete path ends at the anchor, so its issuers are the certificates between leaf and anchor and there
    /// must be one. A partial path (OpenSSL ran out of issuers) has no anchor yet: every certificate above the
    /// leaf is an issuer, and a missing intermediate may simply be the part left out.
    static func markerReasons(path: [Certificate], isComplete: Bool) -> [Reason] {
        var reasons: [Reason] = []
        guard let leaf = path.first else { return reasons }
        if !leaf.hasExtension(leafMarker) {
            reasons.append(
                Reason(.chainLeafMarkerMissing, "chain: leaf lacks receipt-signing marker OID \(leafMarker)"))
        }
        let issuers = isComplete ? path.dropFirst().dropLast() : path.dropFirst()
        if let intermediate = issuers.first {
            if !intermediate.hasExtension(intermediateMarker) {
                reasons.append(
                    Reason(
                        .chainIntermediateMarkerMissing,
                        "chain: intermediate \(intermediate.subject) lacks marker OID \(intermediateMarker)"))
            }
        } else if isComplete {
            reasons.append(
                Reason(
                    .chainIntermediateMarkerMissing,
                    "chain: no intermediate between the leaf and the anchor carries marker OID \(intermediateMarker)"))
        }
        for issuer in issuers where !issuer.isCA {
            reasons.append(Reason(.chainNotACA, "chain: \(issuer.subject) is not a CA"))
        }
        return reasons
    }

    static func reason(for failure: ChainVerificationResult.Failure, result: ChainVerificationResult, leaf: Certificate)
        -> Reason
    {
        let subject = result.chain.indices.contains(result.depth) ? result.chain[result.depth].subject : leaf.subject
        let detail = "at depth \(result.depth) (\(subject)): \(result.message)"
        switch failure {
        case .expired: return Reason(.chainExpired, "chain: certificate expired at the validation time, \(detail)")
        case .notYetValid:
            return Reason(.chainNotYetValid, "chain: certificate not yet valid at the validation time, \(detail)")
        case .untrustedRoot: return Reason(.chainUntrustedRoot, "chain: does not end at a trusted anchor, \(detail)")
        case .issuerMissing:
            return Reason(
                .chainIncomplete,
                "chain: the issuer is neither in the receipt nor a trust anchor, so the chain cannot be completed offline, \(detail)"
            )
        case .invalidSignature: return Reason(.chainInvalidSignature, "chain: bad certificate signature, \(detail)")
        case .notACA: return Reason(.chainNotACA, "chain: an issuer is not a CA, \(detail)")
        case .other: return Reason(.chainValidationFailed, "chain: path validation failed, \(detail)")
        }
    }

    /// RFC 5652 §5.3: `sid` names the signer certificate by issuer and serial number, or by subject key identifier.
    static func identifies(_ signer: SignerInfo, _ certificate: Certificate) -> Bool {
        if let issuer = signer.issuer, let serial = signer.serialNumber {
            return issuer.elementsEqual(certificate.issuerDER) && serial.elementsEqual(certificate.serialNumber)
        }
        if let keyID = signer.subjectKeyIdentifier, let certificateKeyID = certificate.subjectKeyIdentifier {
            return keyID.elementsEqual(certificateKeyID)
        }
        return false
    }

    /// The chain's identity for the cache: the anchor set, every embedded certificate, and the signer
    /// identifier with a part saying which of its forms are present (so an absent field and an empty one
    /// never read the same). Borrows the receipt's bytes; the cache copies them only when it stores a chain.
    func chainKey(signedData: SignedData, signer: SignerInfo) -> VerifiedChainCache.Key {
        let presence =
            (signer.issuer == nil ? 0 : 1) | (signer.serialNumber == nil ? 0 : 2)
            | (signer.subjectKeyIdentifier == nil ? 0 : 4)
        var parts: [ArraySlice<UInt8>] = []
        parts.reserveCapacity(signedData.certificates.count + 5)
        parts.append(anchorIdentity[...])
        parts += signedData.certificates
        parts.append(Self.presenceTags[presence])
        parts.append(signer.issuer ?? [])
        parts.append(signer.serialNumber ?? [])
        parts.append(signer.subjectKeyIdentifier ?? [])
        return VerifiedChainCache.Key(parts: parts)
    }

    /// One-byte parts for ``chainKey(signedData:signer:)``, made once so a lookup allocates none.
    static let presenceTags: [ArraySlice<UInt8>] = (0..<8).map { [UInt8($0)][...] }
}
