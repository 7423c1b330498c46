internal import BER
internal import ReceiptCrypto
internal import ReceiptModel

extension ReceiptVerifier {
    /// The digest the SignerInfo names, when this verifier implements it together with its signature
    /// algorithm (RSA PKCS#1 v1.5: `rsaEncryption` or the matching `shaNWithRSAEncryption`).
    ///
    /// Anything else is reported as ``Reason/Code/signatureUnsupportedAlgorithm`` (`inconclusive`): it
    /// proves nothing about the receipt, only that this verifier cannot decide.
    enum AlgorithmChoice {
        case supported(DigestAlgorithm)
        case unsupported(Reason)
    }

    static func digestAlgorithm(for signer: SignerInfo) -> AlgorithmChoice {
        let digests: [(ASN1ObjectIdentifier, DigestAlgorithm, ASN1ObjectIdentifier)] = [
            (.sha1, .sha1, .sha1WithRSAEncryption), (.sha256, .sha256, .sha256WithRSAEncryption),
            (.sha384, .sha384, .sha384WithRSAEncryption), (.sha512, .sha512, .sha512WithRSAEncryption),
        ]
        guard let match = digests.first(where: { $0.0 == signer.digestAlgorithm.algorithm }) else {
            return .unsupported(
                Reason(.signatureUnsupportedAlgorithm, "signature: unsupported digest algorithm \(signer.digestAlgorithm)"))
        }
        let signatureAlgorithm = signer.signatureAlgorithm.algorithm
        guard signatureAlgorithm == .rsaEncryption || signatureAlgorithm == match.2 else {
            return .unsupported(
                Reason(
                    .signatureUnsupportedAlgorithm,
                    "signature: unsupported signature algorithm \(signatureAlgorithm) with digest \(match.1)"))
        }
        return .supported(match.1)
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
                        .signatureMismatch, "signature: the contentType attribute is missing or differs from eContentType")
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
        } catch where error.code == .unsupportedAlgorithm {
            return Reason(.signatureUnsupportedAlgorithm, "signature: \(error.reason)")
        } catch {
            return Reason(.internalError, "signature: OpenSSL could not run the check: \(error)")
        }
    }
}
