/// One check's finding in a ``Verdict``: a stable dotted ``code`` and a human ``message``.
///
/// Callers and tests branch on `code`; `message` is for people and may change. The codes below are the
/// local verifier's; the remote fallback (`ReceiptRemote`) adds its own (`remote.*`), so that a verdict
/// Apple helped decide has reasons of the same type.
public struct Reason: Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier of the check and what it found, e.g. `chain.leaf_marker_missing`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case signatureMismatch = "signature.mismatch"
            case signatureMessageDigestMismatch = "signature.message_digest_mismatch"
            case signatureNoSigner = "signature.no_signer"
            case signatureMultipleSigners = "signature.multiple_signers"
            case signatureSignerCertificateMissing = "signature.signer_certificate_missing"
            case signatureAlgorithmRejected = "signature.algorithm_rejected"
            case chainUntrustedRoot = "chain.untrusted_root"
            case chainKeyRejected = "chain.key_rejected"
            case chainTooLarge = "chain.too_large"
            case chainIncomplete = "chain.incomplete"
            case chainLeafMarkerMissing = "chain.leaf_marker_missing"
            case chainIntermediateMarkerMissing = "chain.intermediate_marker_missing"
            case chainNotACA = "chain.not_a_ca"
            case chainExpired = "chain.expired"
            case chainNotYetValid = "chain.not_yet_valid"
            case chainInvalidSignature = "chain.invalid_signature"
            case chainCreationDateOutsideLeafValidity = "chain.creation_date_outside_leaf_validity"
            case chainValidationFailed = "chain.validation_failed"
            case chainValidationTimeUnavailable = "chain.validation_time_unavailable"
            case receiptMalformed = "receipt.malformed"
            case policyBundleIDRejected = "policy.bundle_id_rejected"
            case policyEnvironmentRejected = "policy.environment_rejected"
            case policyAppVersionRejected = "policy.app_version_rejected"
            case policyDeviceHashMismatch = "policy.device_hash_mismatch"
            case ios6SignatureMismatch = "ios6.signature_mismatch"
            case ios6ChainIncomplete = "ios6.chain_incomplete"
            case policyAppAppleIDRejected = "policy.app_apple_id_rejected"
            case policySignedTooLongAgo = "policy.signed_too_long_ago"
            case jwsMalformed = "jws.malformed"
            case jwsAlgorithmRejected = "jws.algorithm_rejected"
            case jwsCertificatesMissing = "jws.certificates_missing"
            case jwsSignatureMismatch = "jws.signature_mismatch"
            case jwsNestedMismatch = "jws.nested_mismatch"
            case jwsUnknownKind = "jws.unknown_kind"
            case jwsKindMismatch = "jws.kind_mismatch"
            case jwsX5COrder = "jws.x5c_order"
            case internalError = "verification.internal_error"
        }
        private let name: String
        private init(_ kind: Kind) { name = kind.rawValue }
        /// A code of a layer above this one (the remote fallback's `remote.*`); its owner documents it.
        package init(layerCode name: String) { self.name = name }

        /// The RSA signature over the payload (or the signed attributes) does not verify with the signer's key.
        public static let signatureMismatch = Code(.signatureMismatch)
        /// RFC 5652 §5.4: the `messageDigest` signed attribute differs from the payload's digest.
        public static let signatureMessageDigestMismatch = Code(.signatureMessageDigestMismatch)
        /// The SignedData has no SignerInfo.
        public static let signatureNoSigner = Code(.signatureNoSigner)
        /// The SignedData has more than one SignerInfo (receipts have exactly one).
        public static let signatureMultipleSigners = Code(.signatureMultipleSigners)
        /// No embedded certificate matches the SignerInfo's issuer and serial (or key identifier).
        public static let signatureSignerCertificateMissing = Code(.signatureSignerCertificateMissing)
        /// The SignerInfo names a digest or signature algorithm Apple never signs receipts with: receipts are
        /// RSA PKCS#1 v1.5 with SHA-1 or SHA-256 (`rsaEncryption` or the matching `shaNWithRSAEncryption`).
        /// Anything else (MD5, SHA-224, SHA-384, RSASSA-PSS, ECDSA, an algorithm that contradicts the digest)
        /// proves the receipt is not one Apple issued.
        public static let signatureAlgorithmRejected = Code(.signatureAlgorithmRejected)
        /// The chain ends at a self-signed certificate that is not a trusted anchor.
        public static let chainUntrustedRoot = Code(.chainUntrustedRoot)
        /// An embedded certificate's public key is not what Apple's receipt chains use (RSA of 2,048 to 4,096
        /// bits with a public exponent of at most 65,537; 1,024 bits and up for iOS 6 receipts). Checked before any
        /// signature is computed, so no key can make a check expensive.
        public static let chainKeyRejected = Code(.chainKeyRejected)
        /// The receipt embeds more certificates, or larger ones, than Apple's chains ever hold (at most
        /// ``ReceiptVerifier/maximumEmbeddedCertificates`` of ``ReceiptVerifier/maximumCertificateSize`` bytes).
        public static let chainTooLarge = Code(.chainTooLarge)
        /// A certificate's issuer is neither in the receipt nor a trust anchor, so the chain cannot be
        /// completed offline: the bytes neither prove nor disprove the receipt (Apple can decide).
        public static let chainIncomplete = Code(.chainIncomplete)
        /// The signing leaf lacks Apple's receipt-signing marker OID 1.2.840.113635.100.6.11.1.
        public static let chainLeafMarkerMissing = Code(.chainLeafMarkerMissing)
        /// The intermediate lacks Apple's WWDR marker OID 1.2.840.113635.100.6.2.1 (or there is no intermediate).
        public static let chainIntermediateMarkerMissing = Code(.chainIntermediateMarkerMissing)
        /// A certificate acting as an issuer is not a CA (RFC 5280 §4.2.1.9).
        public static let chainNotACA = Code(.chainNotACA)
        /// A certificate of the chain had expired at the validation time.
        public static let chainExpired = Code(.chainExpired)
        /// A certificate of the chain was not yet valid at the validation time.
        public static let chainNotYetValid = Code(.chainNotYetValid)
        /// A certificate's signature does not verify with its issuer's key.
        public static let chainInvalidSignature = Code(.chainInvalidSignature)
        /// The receipt's creation date (attribute 12) lies outside the signing leaf's validity.
        public static let chainCreationDateOutsideLeafValidity = Code(.chainCreationDateOutsideLeafValidity)
        /// Path validation failed for another reason (OpenSSL's text is in the message).
        public static let chainValidationFailed = Code(.chainValidationFailed)
        /// `ValidationTime.receiptCreation` was asked for but the receipt has no creation date.
        public static let chainValidationTimeUnavailable = Code(.chainValidationTimeUnavailable)
        /// The bytes are not a decodable receipt (or an embedded certificate does not parse).
        public static let receiptMalformed = Code(.receiptMalformed)
        /// The bundle id is not among the accepted ones.
        public static let policyBundleIDRejected = Code(.policyBundleIDRejected)
        /// The environment is not among the accepted ones.
        public static let policyEnvironmentRejected = Code(.policyEnvironmentRejected)
        /// The app version is below the minimum or differs from the expected one.
        public static let policyAppVersionRejected = Code(.policyAppVersionRejected)
        /// SHA-1(device id ‖ opaque value ‖ bundle id DER) differs from the receipt's hash (attribute 5).
        public static let policyDeviceHashMismatch = Code(.policyDeviceHashMismatch)
        /// The iOS 6 receipt's RSA-SHA1 signature does not verify with its embedded certificate.
        public static let ios6SignatureMismatch = Code(.ios6SignatureMismatch)
        /// The iOS 6 receipt's signature verifies, but its intermediate is not in the receipt, so the
        /// chain to Apple cannot be completed offline.
        public static let ios6ChainIncomplete = Code(.ios6ChainIncomplete)
        /// The app's Apple id a JWS names (notifications, app transactions) is not among the accepted ones.
        public static let policyAppAppleIDRejected = Code(.policyAppAppleIDRejected)
        /// A JWS was signed longer ago than the policy's maximum age allows (its `signedDate` against now).
        public static let policySignedTooLongAgo = Code(.policySignedTooLongAgo)
        /// The bytes are not a compact JWS with a JSON header and payload of a known kind (`JWSError`, in ReceiptModel).
        public static let jwsMalformed = Code(.jwsMalformed)
        /// The JWS header's `alg` is not ES256, the only algorithm Apple signs StoreKit 2 JWS with (`none`, HS256
        /// and RS256 included: a JWS under them proves nothing about Apple).
        public static let jwsAlgorithmRejected = Code(.jwsAlgorithmRejected)
        /// The JWS header has no `x5c`, or not the three certificates (leaf, intermediate, root) Apple sends.
        public static let jwsCertificatesMissing = Code(.jwsCertificatesMissing)
        /// The ES256 signature does not verify with the `x5c` leaf's key over the signing input.
        public static let jwsSignatureMismatch = Code(.jwsSignatureMismatch)
        /// A notification's nested JWS is about another app or environment than the notification itself.
        public static let jwsNestedMismatch = Code(.jwsNestedMismatch)
        /// A JWS found on its own whose payload has the required members of no single kind (or of several): nothing
        /// says whether it is a transaction, a renewal info, an app transaction or a notification. The caller can
        /// say (`verify-local --jws-kind`, the member a JWS is sent in).
        public static let jwsUnknownKind = Code(.jwsUnknownKind)
        /// A JWS whose kind is known from where it was found (`signedRenewalInfo` holds a renewal info) lacks a
        /// member every payload of that kind has.
        public static let jwsKindMismatch = Code(.jwsKindMismatch)
        /// The `x5c` certificates are not leaf, intermediate, root in that order, as Apple sends them: each one is
        /// issued by the next, the last is self-issued, and the validated path is exactly these three.
        public static let jwsX5COrder = Code(.jwsX5COrder)
        /// OpenSSL failed to set up a check (allocation failure); says nothing about the receipt.
        public static let internalError = Code(.internalError)

        /// The code as a dotted string.
        public var description: String { name }
    }

    /// The stable code.
    public let code: Code
    /// What was found, in words (e.g. "chain: leaf lacks receipt-signing marker OID 1.2.840.113635.100.6.11.1").
    public let message: String

    /// A finding with its stable code and a message for people.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Whether this finding proves the subject false or unacceptable. Every code does but those that leave the
    /// outcome open: the bytes at hand cannot complete the chain, no instant was given to validate at, or OpenSSL
    /// could not run a check (``VerificationOutcome/judging(_:)``).
    public var decides: Bool { !Self.undecidedCodes.contains(code) }

    /// Codes that leave the outcome open rather than prove the subject false.
    static let undecidedCodes: Set<Code> = [
        .chainValidationTimeUnavailable, .chainIncomplete, .ios6ChainIncomplete, .internalError,
    ]

    public var description: String { "\(code): \(message)" }
}
