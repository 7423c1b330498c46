package import ReceiptModel

/// What the stand-in made of one request's `Authorization: Bearer <JWT>`, recorded with the request.
package struct BearerTokenCheck: Sendable, Hashable {
    /// `true` when the token passed every check; `false` when one failed; `nil` when no key is configured
    /// (the token is then decoded and recorded, never refused).
    package let isVerified: Bool?
    /// The first check that failed ("exp is more than 3600 s after iat"), `nil` when none did.
    package let failure: String?
    /// The JOSE header's members (`alg`, `kid`, `typ`), when the token decoded.
    package let header: JSONObject?
    /// The payload's claims (`iss`, `iat`, `exp`, `aud`, `bid`), when the token decoded.
    package let claims: JSONObject?

    init(isVerified: Bool?, failure: String?, header: JSONObject?, claims: JSONObject?) {
        self.isVerified = isVerified
        self.failure = failure
        self.header = header
        self.claims = claims
    }

    /// Whether the request is refused with 401: only a configured check that failed refuses.
    var refuses: Bool { isVerified == false }
}
