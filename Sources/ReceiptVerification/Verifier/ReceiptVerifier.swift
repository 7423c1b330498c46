internal import BER
internal import ReceiptCrypto
public import ReceiptModel

/// Verifies App Store receipts locally: CMS signature, certificate chain to a pinned Apple root at an
/// explicit validation time, Apple's marker extensions, and the caller's policy.
///
/// Create one per configuration and share it: it is `Sendable`, verifies concurrently from any number
/// of tasks, and remembers verified chains so the steady-state cost of a receipt is its decode, one
/// digest and one RSA verification.
///
/// ```swift
/// let verifier = ReceiptVerifier()
/// let verdict = verifier.verify(receiptData)          // [UInt8], ArraySlice, String or Data
/// if case .appReceipt(let receipt)? = verdict.verifiedReceipt {
///     for purchase in receipt.payload.inAppPurchases { … }
/// }
/// ```
public final class ReceiptVerifier: Sendable {
    /// The configuration this verifier was made with.
    public let configuration: Configuration
    let cache: VerifiedChainCache
    let anchorIdentity: [UInt8]

    /// Apple's receipt-signing leaf marker.
    static let leafMarker = ASN1ObjectIdentifier.appleReceiptSigningLeafMarker.description
    /// Apple's WWDR intermediate marker.
    static let intermediateMarker = ASN1ObjectIdentifier.appleWWDRIntermediateMarker.description

    /// A verifier with its own chain cache; make one per configuration and share it.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        cache = VerifiedChainCache(capacity: configuration.chainCacheCapacity)
        anchorIdentity = configuration.trustAnchors.identity()
    }

    /// Hits and misses of the verified-chain cache so far.
    public var cacheStatistics: ChainCacheStatistics { cache.statistics }

    /// Verifies a receipt as a client sends it: a PKCS#7 app receipt (DER or BER), base64 of it (white
    /// space, quotes, a `data:` prefix and a byte-order mark allowed), or an iOS 6 transaction receipt as
    /// plist text or base64 of it (`ReceiptInput` (module ReceiptModel) recognizes the form). The bytes are
    /// decoded once; the verdict carries what decoded.
    ///
    /// Never throws: undecodable input is `invalid` with ``Reason/Code/receiptMalformed`` and the
    /// decoder's error in ``VerificationResult/decodingError``.
    /// - Parameters:
    ///   - bytes: the receipt as the client sent it.
    ///   - validationTime: overrides ``Configuration/validationTime`` for this call.
    ///   - policy: overrides ``Configuration/policy`` for this call.
    ///   - now: the instant ``ValidationTime/now`` stands for in this call; `nil` reads ``Configuration/clock``
    ///     (only when the validation time is `now`).
    public func verify(
        _ bytes: ArraySlice<UInt8>, validationTime: ValidationTime? = nil, policy: ReceiptPolicy? = nil,
        now: ReceiptDate? = nil
    ) -> Verdict {
        do throws(ReceiptError) {
            return verify(try ReceiptInput(bytes: bytes), validationTime: validationTime, policy: policy, now: now)
        } catch {
            return Verdict.malformed(error, validationTime: validationTime ?? configuration.validationTime)
        }
    }

    /// Verifies receipt bytes; see ``verify(_:validationTime:policy:now:)-(ArraySlice<UInt8>,_,_,_)``.
    public func verify(
        _ bytes: [UInt8], validationTime: ValidationTime? = nil, policy: ReceiptPolicy? = nil,
        now: ReceiptDate? = nil
    ) -> Verdict {
        verify(bytes[...], validationTime: validationTime, policy: policy, now: now)
    }

    /// Verifies receipt text, e.g. verifyReceipt's `receipt-data` (base64) or iOS 6 plist text; see
    /// ``verify(_:validationTime:policy:now:)-(ArraySlice<UInt8>,_,_,_)``.
    public func verify(
        _ text: String, validationTime: ValidationTime? = nil, policy: ReceiptPolicy? = nil,
        now: ReceiptDate? = nil
    ) -> Verdict {
        verify(Array(text.utf8)[...], validationTime: validationTime, policy: policy, now: now)
    }

    /// Verifies an already decoded receipt of either kind.
    public func verify(
        _ input: ReceiptInput, validationTime: ValidationTime? = nil, policy: ReceiptPolicy? = nil,
        now: ReceiptDate? = nil
    ) -> Verdict {
        switch input {
        case .appReceipt(let receipt):
            verify(receipt, as: input, validationTime: validationTime, policy: policy, now: now)
        case .iOS6(let receipt): verify(receipt, validationTime: validationTime, policy: policy, now: now)
        }
    }

    /// Verifies an already decoded app receipt.
    ///
    /// Every check that can be decided is decided, and `inconclusive` is left only when none of them proves the
    /// receipt false: exactly one SignerInfo; algorithms Apple signs with; the chain (cached), at the validation
    /// instant when there is one (without one, everything but validity periods); the creation date against the
    /// leaf's validity; the CMS signature (RFC 5652 §5.4); then the policy, unless the receipt is already proven
    /// false. The first reason is a proving one whenever there is one (see `verdict(_:receipt:environment:validationTime:instant:chain:)`).
    public func verify(
        _ receipt: AppReceipt, validationTime: ValidationTime? = nil, policy: ReceiptPolicy? = nil,
        now: ReceiptDate? = nil
    ) -> Verdict {
        verify(receipt, as: .appReceipt(receipt), validationTime: validationTime, policy: policy, now: now)
    }

    /// The same, with `input` the receipt as its verdict carries it: the input it was decoded as, not boxed again.
    private func verify(
        _ receipt: AppReceipt, as input: ReceiptInput, validationTime: ValidationTime?, policy: ReceiptPolicy?,
        now: ReceiptDate?
    ) -> Verdict {
        let timePolicy = validationTime ?? configuration.validationTime
        let policy = policy ?? configuration.policy
        let payload = receipt.payload
        let signedData = receipt.signedData
        var environment = payload.receiptType.flatMap(ReceiptEnvironment.init(receiptType:))
        let instant = timePolicy.instant(creationDate: payload.creationDate) { now ?? configuration.clock() }

        func finish(_ reasons: [Reason], chain: [String] = []) -> Verdict {
            Self.verdict(
                reasons, receipt: input, environment: environment, validationTime: timePolicy,
                instant: instant, chain: chain)
        }

        guard signedData.signerInfos.count == 1, let signer = signedData.signerInfos.first else {
            return signedData.signerInfos.isEmpty
                ? finish([Reason(.signatureNoSigner, "signature: the SignedData has no SignerInfo")])
                : finish([
                    Reason(
                        .signatureMultipleSigners,
                        "signature: \(signedData.signerInfos.count) SignerInfos; a receipt has exactly one")
                ])
        }
        var reasons: [Reason] = []
        var digestAlgorithm: DigestAlgorithm?
        switch Self.digestAlgorithm(for: signer) {
        case .accepted(let algorithm): digestAlgorithm = algorithm
        case .rejected(let reason): reasons.append(reason)
        }
        if instant == nil {
            reasons.append(
                Reason(
                    .chainValidationTimeUnavailable,
                    "chain: validation at the receipt's creation date was asked for, but it has none"))
        }

        let chain = evaluateChain(signedData: signedData, signer: signer, at: instant?.secondsSince1970)
        reasons += chain.reasons
        if chain.anchoredAtXcode { environment = .xcode }

        if let created = payload.creationDate, let validity = chain.leafValidity,
            !Certificate.validity(
                notBefore: validity.notBefore, notAfter: validity.notAfter, contains: created.secondsSince1970)
        {
            reasons.append(
                Reason(
                    .chainCreationDateOutsideLeafValidity,
                    "chain: creation date \(created) is outside the signing certificate's validity"))
        }

        if let key = chain.signerKey, let digestAlgorithm,
            let reason = Self.checkSignature(signedData: signedData, signer: signer, digest: digestAlgorithm, key: key)
        {
            reasons.append(reason)
        }

        // A chain may teach the cache once it, the creation date and the signature made with it have all verified:
        // the receipt is Apple's. The policy judges the payload, not the chain; a genuine receipt it refuses (another
        // app's, environment's or version's) is refused again each time it comes, from the cache, instead of paying
        // OpenSSL's path validation each time. A forgery fails the signature and never enters.
        let signedByApple = reasons.isEmpty
        if !reasons.contains(where: \.decides) {
            reasons += policy.evaluate(payload, environment: environment)
        }
        if signedByApple, let verified = chain.verified {
            // A refused receipt's chain takes a free slot but never evicts: the key holds bytes Apple's signature does
            // not cover (the certificates' order, the signer identifier's form), so receipts of any app could
            // otherwise push the operator's own chains out.
            cache.insert(verified.key, verified.chain, evicting: reasons.isEmpty)
        }
        return finish(reasons, chain: chain.subjects)
    }

    /// Builds the verdict by the one outcome rule (``VerificationOutcome/judging(_:)``).
    static func verdict(
        _ reasons: [Reason], receipt: ReceiptInput, environment: ReceiptEnvironment?, validationTime: ValidationTime,
        instant: ReceiptDate?, chain: [String]
    ) -> Verdict {
        Verdict(
            judging: reasons, subject: ReceiptSubject(receipt: receipt), environment: environment,
            validationTime: validationTime, validationInstant: instant, chain: chain)
    }
}
