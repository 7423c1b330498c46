package import ReceiptCrypto

/// A certificate and the private key that signs in its name.
///
/// The key need not match the certificate: a receipt "signed by another key" is made by pairing
/// one certificate with a different key.
public struct SigningIdentity: Sendable {
    /// The certificate named in the `SignerInfo`.
    public let certificate: ForgeCertificate
    /// The key that makes the signature.
    package let privateKey: PrivateKey

    /// Pairs a certificate with a key.
    package init(certificate: ForgeCertificate, privateKey: PrivateKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Pairs PEM texts of a certificate and an unencrypted private key.
    public init(certificatePEM: String, privateKeyPEM: String) throws(ForgeError) {
        certificate = try ForgeCertificate(pem: certificatePEM)
        do {
            privateKey = try PrivateKey(pem: privateKeyPEM)
        } catch {
            throw ForgeError(.invalidKey, "cannot read the private key: \(error)")
        }
    }
}
