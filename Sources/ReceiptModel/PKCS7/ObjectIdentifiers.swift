public import BER

// Every object identifier the model names, once.
extension ASN1ObjectIdentifier {
    /// `id-signedData` (RFC 5652 §5.1).
    package static let pkcs7SignedData = ASN1ObjectIdentifier(constant: "1.2.840.113549.1.7.2")
    /// `id-data` (RFC 5652 §4): the content type of a receipt payload.
    package static let pkcs7Data = ASN1ObjectIdentifier(constant: "1.2.840.113549.1.7.1")
    /// `id-contentType` signed attribute (RFC 5652 §11.1).
    package static let contentTypeAttribute = ASN1ObjectIdentifier(constant: "1.2.840.113549.1.9.3")
    /// `id-messageDigest` signed attribute (RFC 5652 §11.2).
    package static let messageDigestAttribute = ASN1ObjectIdentifier(constant: "1.2.840.113549.1.9.4")
    /// `id-signingTime` signed attribute (RFC 5652 §11.3).
    package static let signingTimeAttribute = ASN1ObjectIdentifier(constant: "1.2.840.113549.1.9.5")

    /// SHA-1 (RFC 3370 §2.1).
    public static let sha1 = ASN1ObjectIdentifier(constant: "1.3.14.3.2.26")
    /// SHA-256 (RFC 5754 §2.2).
    public static let sha256 = ASN1ObjectIdentifier(constant: "2.16.840.1.101.3.4.2.1")
    /// SHA-384 (RFC 5754 §2.3).
    package static let sha384 = ASN1ObjectIdentifier(constant: "2.16.840.1.101.3.4.2.2")
    /// SHA-512 (RFC 5754 §2.4).
    package static let sha512 = ASN1ObjectIdentifier(constant: "2.16.840.1.101.3.4.2.3")

    /// `rsaEncryption` (RFC 8017 §A.1): RSA PKCS#1 v1.5, the digest named separately.
    public static let rsaEncryption = ASN1ObjectIdentifier(constant: "1.2.840.113549.1.1.1")
    /// `sha1WithRSAEncryption` (RFC 8017 §A.2.4).
    package static let sha1WithRSAEncryption = ASN1ObjectIdentifier(constant: "1.2.840.113549.1.1.5")
    /// `sha256WithRSAEncryption` (RFC 8017 §A.2.4).
    public static let sha256WithRSAEncryption = ASN1ObjectIdentifier(constant: "1.2.840.113549.1.1.11")
    /// `sha384WithRSAEncryption` (RFC 8017 §A.2.4).
    package static let sha384WithRSAEncryption = ASN1ObjectIdentifier(constant: "1.2.840.113549.1.1.12")
    /// `sha512WithRSAEncryption` (RFC 8017 §A.2.4).
    package static let sha512WithRSAEncryption = ASN1ObjectIdentifier(constant: "1.2.840.113549.1.1.13")
    /// `id-ecPublicKey` (RFC 5480 §2.1.1): an elliptic-curve key, its curve in the parameters.
    public static let ecPublicKey = ASN1ObjectIdentifier(constant: "1.2.840.10045.2.1")
    /// `secp256r1` / P-256 (RFC 5480 §2.1.1.1): the curve of ES256 (StoreKit 2 JWS leaves).
    package static let secp256r1 = ASN1ObjectIdentifier(constant: "1.2.840.10045.3.1.7")
    /// `secp384r1` / P-384 (RFC 5480 §2.1.1.1): the curve of Apple Root CA - G3 and its intermediates.
    package static let secp384r1 = ASN1ObjectIdentifier(constant: "1.3.132.0.34")

    /// Apple's marker on the receipt-signing leaf certificate.
    package static let appleReceiptSigningLeafMarker = ASN1ObjectIdentifier(constant: "1.2.840.113635.100.6.11.1")
    /// Apple's marker on the WWDR intermediate certificate.
    package static let appleWWDRIntermediateMarker = ASN1ObjectIdentifier(constant: "1.2.840.113635.100.6.2.1")
}
