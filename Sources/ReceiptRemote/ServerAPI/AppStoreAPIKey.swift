import ReceiptCrypto
@_spi(Fuzzing) import ReceiptModel

/// The operator's in-app purchase key for the App Store Server API: the `.p8` private key App Store Connect hands
/// out, its key id and the team's issuer id. It signs the ES256 JWTs the client sends (through OpenSSL).
///
/// The key itself never leaves this value: its description names only the key id, and no error message, log line or
/// metric carries the PEM.
public struct AppStoreAPIKey: Sendable, CustomStringConvertible {
    /// The key id App Store Connect shows (the JWT header's `kid`).
    public let keyID: String
    /// The issuer id of the team (the JWT's `iss`).
    public let issuerID: String
    private let privateKey: PrivateKey

    /// Reads an unencrypted PKCS#8 EC P-256 private key (a `.p8` file's text).
    /// - Throws: ``RemoteError`` `remote.invalid_configuration` when the text is not such a key, or the key id or
    ///   issuer id is empty or not printable ASCII (they go into a JSON header as they are).
    public init(pem: String, keyID: String, issuerID: String) throws(RemoteError) {
        for (name, value) in [("key id", keyID), ("issuer id", issuerID)] {
            guard !value.isEmpty, value.utf8.count <= 128, value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw RemoteError(
                    .invalidConfiguration, "the App Store Server API \(name) is empty or not printable ASCII")
            }
        }
        let key: PrivateKey
        do {
            key = try PrivateKey(pem: pem)
            // Proves the key can sign ES256 (an EC P-256 key) before the first request needs it.
            _ = try key.signES256(message: [0][...])
        } catch {
            throw RemoteError(
                .invalidConfiguration,
                "the App Store Server API key (\(keyID)) is not an unencrypted PKCS#8 EC P-256 private key")
        }
        self.keyID = keyID
        self.issuerID = issuerID
        self.privateKey = key
    }

    public var description: String { "AppStoreAPIKey(keyID: \(keyID))" }

    /// A signed JWT for `bundleID`: header `alg` ES256, `kid`, `typ` JWT; claims `iss`, `iat`, `exp`,
    /// `aud` `appstoreconnect-v1`, `bid`.
    /// - Parameters:
    ///   - issuedAt: `iat`, seconds since 1970.
    ///   - lifetime: `exp` − `iat` in seconds (Apple refuses more than 3600).
    /// - Throws: ``RemoteError`` `remote.invalid_configuration` when OpenSSL cannot sign.
    /// SPI for the Benchmarks package, a package of its own that `package` access does not reach.
    @_spi(Benchmarks) public func token(bundleID: String, issuedAt: Int64, lifetime: Int64) throws(RemoteError)
        -> String
    {
        var header = JSONWriter(capacity: 96)
        header.beginObject()
        header.field("alg", "ES256")
        header.field("kid", keyID)
        header.field("typ", "JWT")
        header.endObject()
        var claims = JSONWriter(capacity: 192)
        claims.beginObject()
        claims.field("iss", issuerID)
        claims.field("iat", issuedAt)
        claims.field("exp", issuedAt + lifetime)
        claims.field("aud", "appstoreconnect-v1")
        claims.field("bid", bundleID)
        claims.endObject()
        let signingInput = Base64.encodeURL(header.bytes[...]) + "." + Base64.encodeURL(claims.bytes[...])
        let signature: [UInt8]
        do {
            signature = try privateKey.signES256(message: Array(signingInput.utf8)[...])
        } catch {
            throw RemoteError(.invalidConfiguration, "OpenSSL could not sign the App Store Server API token (\(keyID))")
        }
        return signingInput + "." + Base64.encodeURL(signature[...])
    }
}
