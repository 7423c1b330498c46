import Foundation

/// What a verifier should conclude about a minted fixture, written next to it as
/// `NAME.expected.json` for the verification tests and `verify-local`.
public struct FixtureExpectation: Hashable, Sendable, Codable {
    /// `valid`, `invalid` or `inconclusive`.
    public var verdict: String
    /// The reason code (`signature.mismatch`, `chain.expired`, …); `nil` for valid fixtures.
    public var reason: String?
    /// The trust anchor to verify against, relative to the repository (`certs/test-root.pem`).
    public var root: String
    /// The validation time to use, RFC 3339; the receipt's creation date unless said otherwise.
    public var validationTime: String?
    /// One sentence on what the fixture exercises.
    public var exercises: String

    public init(
        verdict: String, reason: String? = nil, root: String = "certs/test-root.pem",
        validationTime: String? = nil, exercises: String
    ) {
        self.verdict = verdict
        self.reason = reason
        self.root = root
        self.validationTime = validationTime
        self.exercises = exercises
    }
}

extension FixtureExpectation {
    /// An `NAME.expected.json` document as written next to a fixture: pretty, keys sorted (byte-stable), a final
    /// newline.
    static func documentJSON(_ document: some Encodable) throws(ForgeError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(document) + Data("\n".utf8)
        } catch {
            throw ForgeError(.invalidRequest, "cannot encode the expectation: \(error)")
        }
    }
}
