/// Who decided a ``FallbackResult``: the bytes at hand, or Apple's verifyReceipt.
public enum DecisionSource: String, Sendable, Hashable, CustomStringConvertible {
    /// The local verdict stands (Apple was not asked, or gave no usable answer).
    case local
    /// Apple's answer decided.
    case remote

    public var description: String { rawValue }
}
