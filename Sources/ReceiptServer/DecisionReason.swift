/// One finding behind a ``Decision``: a stable dotted code and a message for people.
///
/// Local findings carry the verifier's codes (`chain.expired`, …); the remote fallback adds its own
/// (`remote.timeout`, `fallback.rejected`, …). Callers branch on `code`.
public struct DecisionReason: Sendable, Hashable, CustomStringConvertible {
    /// The stable code.
    public let code: String
    /// What was found, in words.
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
