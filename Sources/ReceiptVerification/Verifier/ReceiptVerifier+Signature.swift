internal import BER
internal import ReceiptCrypto
internal import ReceiptModel

extension ReceiptVerifier {
    /// The digest of the SignerInfo when its algorithms are ones Apple signs receipts with, else the reason
    /// the receipt is rejected.
    ///
    /// Apple has signed every receipt with RSA PKCS#1 v1.5 over SHA-1 (until 2023) or SHA-256: the signature
    /// algorithm is `rsaEncryption` or the `shaNWithRSAEncryption` of the same digest. A receipt naming anything
    /// else (MD5, SHA-224, SHA-384, SHA-512, RSASSA-PSS, ECDSA, a signature algorithm that contradicts the
    /// digest) cannot be one Apple issued, so it is `invalid` (``Reason/Code/signatureAlgorithmRejected``),
    /// not "undecidable": accepting more would only widen what a forger may choose, and sending it to Apple
    /// would let a forger reach Apple through us.
    enum AlgorithmChoice {
        case accepted(DigestAlgorithm)
        case rejected(Reason)
    }

    static func digestAlgorithm(for signer: SignerInfo) -> AlgorithmChoice {
        let accepted: [(digest: ASN1ObjectIdentifier, algorithm: DigestAlgorithm, signature: ASN1ObjectIdentifier)] = [
            (.sha1, .sha1, .sha1WithRSAEncryption), (.sha256, .sha256, .sha256WithRSAEncryption),
        ]
        guard let match = accepted.first(where: { $0.digest == signer.digestAlgorithm.algorithm }) else {
            return .rejected(
                Reason(
                    .signatureAlgorithmRejected,
                    "signature: digest algorithm \(signer.digestAlgorithm); Apple signs receipts with SHA-1 or SHA-256")
            )
        }
        let signatureAlgorithm = signer.signatureAlgorithm.algorithm
        guard signatureAlgorithm == .rsaEncryption || signatureAlgorithm == match.signature else {
            return .rejected(
                Reason(
                    .signatureAlgorithmRejected,
                    "signature: signature algorithm \(signatureAlgorithm) with digest \(match.algorithm); Apple signs receipts with RSA PKCS#1 v1.5"
                ))
        }
        return .accepted(match.algorithm)
    }

    /// Checks the CMS signature (RFC 5652 §5.4, §5.6). Without signed attributes the RSA signature covers
    /// the digest of `eContent`; with them, `messageDigest` must equal that digest and the signature covers
    /// the DER of the attributes with the `[0]` tag replaced by SET (0x31). Returns `nil` when it verifies.
    static func checkSignature(signedData: SignedData, signer: SignerInfo, digest: DigestAlgorithm, key: PublicKey)
        -> Reason?
    {
        do {
            let contentDigest = try digest.hash(signedData.eContent)
            let signedDigest: [UInt8]
            if let attributes = signer.signedAttributes, !attributes.isEmpty {
                guard let messageDigest = signer.messageDigest, messageDigest.elementsEqual(contentDigest) else {
                    return Reason(
                        .signatureMessageDigestMismatch,
                        "signature: the messageDigest attribute differs from the payload's \(digest.rawValue) digest")
                }
                // RFC 5652 §5.3: with signed attributes, contentType is required and must match.
                guard let contentType = signer.contentType, contentType == signedData.eContentType else {
                    return Reason(
                        .signatureMismatch,
                        "signature: the contentType attribute is missing or differs from eContentType")
                }
                // The signature covers the DER SET (§5.4); only the one-octet [0] form maps onto it.
                guard attributes.first == 0xA0 else {
                    return Reason(.signatureMismatch, "signature: signed attributes are not DER-encoded")
                }
                // Copied: one tag octet must change from [0] IMPLICIT (0xA0) to SET (0x31); RFC 5652 §5.4.
                var encoded = Array(attributes)
                encoded[0] = 0x31
                signedDigest = try digest.hash(encoded[...])
            } else {
                signedDigest = contentDigest
            }
            let matches = try key.verifyRSAPKCS1(signature: signer.signature, digest: signedDigest, algorithm: digest)
            return matches
                ? nil : Reason(.signatureMismatch, "signature: the RSA signature does not match the signed content")
        } catch {
            return Reason(.internalError, "signature: OpenSSL could not run the check: \(error)")
        }
    }
}
