import ReceiptCrypto

/// The object identifiers the forge writes, each named once.
enum ObjectIdentifiers {
    /// PKCS#7 `signedData` (RFC 5652 §5.1).
    static let signedData = "1.2.840.113549.1.7.2"
    /// PKCS#7 `data` (RFC 5652 §4).
    static let data = "1.2.840.113549.1.7.1"
    /// `rsaEncryption`, the signature algorithm Apple's SignerInfos name (RFC 8017 appendix C).
    static let rsaEncryption = "1.2.840.113549.1.1.1"
    /// The `contentType` signed attribute (RFC 5652 §11.1).
    static let contentType = "1.2.840.113549.1.9.3"
    /// The `messageDigest` signed attribute (RFC 5652 §11.2).
    static let messageDigest = "1.2.840.113549.1.9.4"

    /// The digest algorithm identifiers (RFC 3370 §2, RFC 5754 §2).
    static func digest(_ algorithm: DigestAlgorithm) -> String {
        switch algorithm {
        case .sha1: "1.3.14.3.2.26"
        case .sha256: "2.16.840.1.101.3.4.2.1"
        case .sha384: "2.16.840.1.101.3.4.2.2"
        case .sha512: "2.16.840.1.101.3.4.2.3"
        }
    }
}
