package import ReceiptCrypto
import ReceiptModel

/// How the stand-in checks the JWT an App Store Server API client signs with its in-app purchase key
/// (`docs/appstore-2026.md` §8.2): header `alg` ES256, `kid`, `typ` JWT; an ES256 signature by the key;
/// claims `iss`, `iat`, `exp` (at most an hour after `iat`, and in the future), `aud` `appstoreconnect-v1`, and
/// `bid` the app's bundle id.
///
/// `iat` may be absent, as the Python and Java clients send it and Apple accepts; then `exp` must be within the
/// hour from now.
package struct ServerAPIAuthorization: Sendable {
    /// The public half of the in-app purchase key.
    package let publicKey: PublicKey
    /// The `kid` a token's header must carry.
    package let keyID: String
    /// The `iss` (issuer id) a token must carry.
    package let issuerID: String
    /// Apple's limit on `exp - iat`: 60 minutes.
    package static let maximumLifetimeSeconds: Int64 = 3600
    /// The `aud` Apple requires.
    package static let audience = "appstoreconnect-v1"

    package init(publicKey: PublicKey, keyID: String, issuerID: String) {
        self.publicKey = publicKey
        self.keyID = keyID
        self.issuerID = issuerID
    }

    /// The checker of tokens signed by the key in `privateKeyPEM` (its public half is kept, nothing else).
    /// - Throws: ``ReceiptCrypto/CryptoError`` when the PEM is not a private key.
    package init(privateKeyPEM: String, keyID: String, issuerID: String) throws(CryptoError) {
        let publicHalf = try PrivateKey(pem: privateKeyPEM).subjectPublicKeyInfo()
        self.init(publicKey: try PublicKey(subjectPublicKeyInfo: publicHalf[...]), keyID: keyID, issuerID: issuerID)
    }

    /// Checks the `Authorization` header's value.
    /// - Parameters:
    ///   - bundleID: the environment's bundle id (`nil`: no data, so `bid` is only required to be present).
    ///   - nowMilliseconds: the request's arrival, UNIX milliseconds.
    func check(_ authorization: String?, bundleID: String?, nowMilliseconds: Int64) -> BearerTokenCheck {
        Self.decode(authorization) { (header, claims, jws) -> String? in
            if jws.algorithm != "ES256" { return "alg is not ES256" }
            if jws.keyID != keyID { return "kid is not \(keyID)" }
            if header.text("typ") != "JWT" { return "typ is not JWT" }
            let verified = (try? publicKey.verifyES256(signature: jws.signature[...], message: jws.signingInput))
            if verified != true { return "the ES256 signature does not verify with the in-app purchase key" }
            return claimFailure(claims, bundleID: bundleID, nowSeconds: nowMilliseconds / 1000)
        }
    }

    private func claimFailure(_ claims: JSONObject, bundleID: String?, nowSeconds: Int64) -> String? {
        if claims.text("iss") != issuerID { return "iss is not \(issuerID)" }
        if claims.text("aud") != Self.audience { return "aud is not \(Self.audience)" }
        guard let bid = claims.text("bid") else { return "bid is missing" }
        if let bundleID, bid != bundleID { return "bid \(bid) is not the app's \(bundleID)" }
        guard let expires = claims["exp"]?.integerValue else { return "exp is missing or not an integer" }
        if expires <= nowSeconds { return "exp is not in the future" }
        if let issued = claims["iat"] {
            guard let issuedAt = issued.integerValue else { return "iat is not an integer" }
            let (lifetime, overflow) = expires.subtractingReportingOverflow(issuedAt)
            if overflow || lifetime > Self.maximumLifetimeSeconds || lifetime < 0 {
                return "exp is more than \(Self.maximumLifetimeSeconds) s after iat"
            }
        } else {
            let (remaining, overflow) = expires.subtractingReportingOverflow(nowSeconds)
            if overflow || remaining > Self.maximumLifetimeSeconds {
                return "no iat, and exp is more than \(Self.maximumLifetimeSeconds) s away"
            }
        }
        return nil
    }

    /// Decodes the header without checking it: what is recorded when no key is configured.
    static func decodeOnly(_ authorization: String?) -> BearerTokenCheck {
        let decoded = decode(authorization) { _, _, _ in nil }
        return BearerTokenCheck(
            isVerified: nil, failure: decoded.failure, header: decoded.header, claims: decoded.claims)
    }

    /// `Bearer <compact JWS>` decoded, then `checks` (returning the first failure, or `nil`) run on it.
    private static func decode(
        _ authorization: String?, _ checks: (JSONObject, JSONObject, CompactJWS) -> String?
    ) -> BearerTokenCheck {
        guard let authorization else {
            return BearerTokenCheck(isVerified: false, failure: "no Authorization header", header: nil, claims: nil)
        }
        let prefix = "Bearer "
        guard authorization.hasPrefix(prefix) else {
            return BearerTokenCheck(isVerified: false, failure: "not a Bearer token", header: nil, claims: nil)
        }
        let token = authorization.dropFirst(prefix.count)
        let jws: CompactJWS
        do throws(JWSError) {
            jws = try CompactJWS(Array(token.utf8)[...])
        } catch {
            return BearerTokenCheck(
                isVerified: false, failure: "not a compact JWS: \(error.reason)", header: nil, claims: nil)
        }
        let failure = checks(jws.header, jws.payload, jws)
        return BearerTokenCheck(isVerified: failure == nil, failure: failure, header: jws.header, claims: jws.payload)
    }
}
