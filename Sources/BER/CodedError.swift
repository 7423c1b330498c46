/// The shape every error of this package shares: a stable `code`, which is what equality and
/// hashing compare, and a `reason` for people, which may change freely.
///
/// Each module keeps its own error struct (with its own `Code` namespace); this protocol gives them
/// one definition of equality and of their printed form.
public protocol CodedError: Error, Hashable, Sendable, CustomStringConvertible {
    associatedtype Code: Hashable, Sendable, CustomStringConvertible
    /// A stable identifier, e.g. `ber.truncated`; tests and callers compare these.
    var code: Code { get }
    /// What happened, in words.
    var reason: String { get }
}

extension CodedError {
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "\(code): \(reason)" }
}
