/// What a verifier that trusts `certs/test-jws-root.pem` as an extra root, and validates the chain at the payload's
/// `signedDate`, should conclude about a JWS fixture.
public struct JWSFixtureExpectation: Hashable, Sendable, Codable {
    /// `valid` or `invalid`.
    public var verdict: String
    /// The deciding reason code (`jws.algorithm_rejected`, `chain.expired`, …); `nil` when valid.
    public var reason: String?
    /// `true` for the Xcode-signed fixture: valid once the verifier opts in to Xcode's StoreKit testing key.
    public var validWithXcodeOptIn: Bool?
    /// One sentence on what the fixture exercises.
    public var exercises: String

    public init(verdict: String, reason: String? = nil, validWithXcodeOptIn: Bool? = nil, exercises: String) {
        self.verdict = verdict
        self.reason = reason
        self.validWithXcodeOptIn = validWithXcodeOptIn
        self.exercises = exercises
    }
}
