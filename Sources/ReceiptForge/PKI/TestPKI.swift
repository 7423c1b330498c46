public import Foundation

/// The project's test PKI on disk: `NAME.pem` certificates in a folder, their keys in
/// `test-only-keys/NAME.key.pem` beside them (the layout `scripts/make-test-pki` writes).
public struct TestPKI: Sendable {
    /// The folder holding the certificates, normally the repository's `certs/`.
    public let directory: URL

    /// The PKI in `directory`.
    public init(directory: URL) {
        self.directory = directory
    }

    /// The certificate `NAME.pem`.
    public func certificate(named name: String) throws(ForgeError) -> ForgeCertificate {
        try ForgeCertificate(pem: text(directory.appendingPathComponent("\(name).pem")))
    }

    /// The PEM text of the test-only key `test-only-keys/NAME.key.pem`.
    package func privateKeyPEM(named name: String) throws(ForgeError) -> String {
        try text(directory.appendingPathComponent("test-only-keys/\(name).key.pem"))
    }

    /// Certificate `certificate` paired with the key of `key` (by default its own).
    public func identity(certificate: String, key: String? = nil) throws(ForgeError) -> SigningIdentity {
        let keyPEM = try privateKeyPEM(named: key ?? certificate)
        return try SigningIdentity(
            certificatePEM: text(directory.appendingPathComponent("\(certificate).pem")),
            privateKeyPEM: keyPEM)
    }

    private func text(_ url: URL) throws(ForgeError) -> String {
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ForgeError(.fileUnreadable, "cannot read \(url.path): \(error.localizedDescription)")
        }
    }
}
