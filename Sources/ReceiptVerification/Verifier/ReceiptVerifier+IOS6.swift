internal import ReceiptCrypto
public import ReceiptModel

extension ReceiptVerifier {
    /// Verifies an iOS 6 transaction receipt as far as its bytes allow.
    ///
    /// The embedded "PurchaseReceiptCertificate" must carry an RSA key like Apple's (1,024 to 4,096 bits,
    /// exponent at most 65,537), its RSA-SHA1 signature over `version ‖ purchase-info` must verify, and the
    /// certificate must be valid at the validation instant (the purchase date for
    /// ``ValidationTime/receiptCreation``); each failure proves the receipt false (`invalid`). The issuing
    /// intermediate is not in the receipt, so the chain to Apple Root CA cannot be completed offline: when
    /// nothing else fails the verdict is `inconclusive` (``Reason/Code/ios6ChainIncomplete``). A self-signed
    /// certificate is an untrusted root (`invalid`). When the operator trusts the issuing intermediate (an
    /// additional root), the path completes and a receipt that passes everything is `valid`.
    public func verify(
        _ receipt: IOS6TransactionReceipt, validationTime: ValidationTime? = nil, policy: ReceiptPolicy? = nil,
        now: ReceiptDate? = nil
    ) -> Verdict {
        let timePolicy = validationTime ?? configuration.validationTime
        let policy = policy ?? configuration.policy
        // The plist's "environment" entry is outside the signed purchase-info, so anyone can edit it:
        // the environment stays unknown until Apple (the endpoint that answers) says.
        let environment: ReceiptEnvironment? = nil
        let instant = timePolicy.instant(creationDate: receipt.purchaseInfo.purchaseDate) {
            now ?? configuration.clock()
        }
        func finish(_ reasons: [Reason], chain: [String]) -> Verdict {
            Self.verdict(
                reasons, receipt: .iOS6(receipt), environment: environment, validationTime: timePolicy,
                instant: instant, chain: chain)
        }

        // Refuse the key before OpenSSL decodes it: decoding some keys costs more than any check.
        if let reason = Self.keyReason(
            certificateDER: receipt.signature.certificate[...], name: "the iOS 6 certificate",
            allowedBits: Self.iOS6KeyBits)
        {
            return finish([reason], chain: [])
        }
        let certificate: Certificate
        do {
            certificate = try Certificate(derEncoded: receipt.signature.certificate[...])
        } catch {
            return finish(
                [Reason(.receiptMalformed, "ios6: the embedded certificate does not parse: \(error)")], chain: [])
        }
        // Before any signature is computed: no key may make a check expensive.
        if let reason = Self.keyReason(certificate, allowedBits: Self.iOS6KeyBits) {
            return finish([reason], chain: [certificate.subject])
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
        } catch {
            reasons.append(Reason(.internalError, "ios6: OpenSSL could not run the check: \(error)"))
        }
        if instant == nil {
            reasons.append(
                Reason(
                    .chainValidationTimeUnavailable,
                    "ios6: validation at the purchase date was asked for, but the receipt has none"))
        }
        let chain = iOS6Chain(certificate, at: instant?.secondsSince1970)
        reasons += chain.reasons
        if !reasons.contains(where: \.decides) {
            reasons += policy.evaluate(receipt, environment: nil)
        }
        return finish(reasons, chain: chain.subjects)
    }

    /// RSA modulus sizes accepted for the iOS 6 certificate: Apple's are 1,024 bits.
    static let iOS6KeyBits = 1024...4096

    /// The iOS 6 certificate's path to the operator's additional roots (Apple's iOS 6 intermediate is never
    /// embedded, and Apple's pinned root cannot be reached without it). What the lone certificate proves is
    /// decided: its validity at the instant, or a self-signed certificate that is no anchor.
    private func iOS6Chain(_ certificate: Certificate, at instant: Int64?) -> (reasons: [Reason], subjects: [String]) {
        let result: ChainVerificationResult
        do {
            result = try ChainVerifier.verify(
                leaf: certificate, intermediates: [], anchors: configuration.trustAnchors.additionalRoots, at: instant)
        } catch {
            return (
                [Reason(.internalError, "ios6: OpenSSL could not run path validation: \(error)")], [certificate.subject]
            )
        }
        let subjects = result.subjects.isEmpty ? [certificate.subject] : result.subjects
        switch result.failure {
        case nil:
            return ([], subjects)
        case .issuerMissing?:
            let proven = provenFailures(inPartialPath: result.chain, at: instant, checksMarkers: false)
            guard proven.isEmpty else { return (proven, subjects) }
            return (
                [
                    Reason(
                        .ios6ChainIncomplete,
                        "ios6: the signature verifies, but the intermediate (\(certificate.issuer)) is not in the receipt, so the chain to Apple cannot be completed offline"
                    )
                ], subjects
            )
        case let failure?:
            return ([Self.reason(for: failure, result: result, leaf: certificate)], subjects)
        }
    }
}
