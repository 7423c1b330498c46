public import ReceiptModel
internal import ReceiptCrypto

extension ReceiptVerifier {
    /// Verifies an iOS 6 transaction receipt as far as its bytes allow.
    ///
    /// The RSA-SHA1 signature over `version ‖ purchase-info` is checked with the embedded
    /// "PurchaseReceiptCertificate". Its issuing intermediate is not in the receipt, so the chain to
    /// Apple Root CA cannot be completed offline: a matching signature is `inconclusive`
    /// (``Reason/Code/ios6ChainIncomplete``), a failing one `invalid` (``Reason/Code/ios6SignatureMismatch``).
    /// The validation instant reported is the purchase date for ``ValidationTime/receiptCreation``.
    public func verify(
        _ receipt: IOS6TransactionReceipt, validationTime: ValidationTime? = nil, policy: ReceiptPolicy? = nil
    ) -> Verdict {
        let timePolicy = validationTime ?? configuration.validationTime
        let policy = policy ?? configuration.policy
        // The plist's "environment" entry is outside the signed purchase-info, so anyone can edit it:
        // the environment stays unknown until Apple (the endpoint that answers) says.
        let environment: ReceiptEnvironment? = nil
        let instant = timePolicy.instant(creationDate: receipt.purchaseInfo.purchaseDate)

        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: receipt.signature.certificate[...])
        } catch {
            return Self.verdict(
                [Reason(.receiptMalformed, "ios6: the embedded certificate does not parse: \(error)")],
                environment: environment, validationTime: timePolicy, instant: instant, chain: [])
        }
        var reasons: [Reason] = []
        do {
            let digest = try DigestAlgorithm.sha1.hash(receipt.signedBytes[...])
            let matches = try certificate.publicKey.verifyRSAPKCS1(
                signature: receipt.signature.signature[...], digest: digest, algorithm: .sha1)
            if !matches {
                reasons.append(
                    Reason(.ios6SignatureMismatch, "ios6: the RSA-SHA1 signature does not match the purchase info"))
            }
        } catch where error.code == .unsupportedAlgorithm {
            reasons.append(Reason(.signatureUnsupportedAlgorithm, "ios6: \(error.reason)"))
        } catch {
            reasons.append(Reason(.internalError, "ios6: OpenSSL could not run the check: \(error)"))
        }
        if reasons.isEmpty {
            reasons += policy.evaluate(receipt, environment: nil)
            reasons.append(
                Reason(
                    .ios6ChainIncomplete,
                    "ios6: the signature verifies, but the intermediate (\(certificate.issuer)) is not in the receipt, so the chain to Apple cannot be completed offline"
                ))
        }
        return Self.verdict(
            reasons, environment: environment, validationTime: timePolicy, instant: instant,
            chain: [certificate.subject])
    }
}
