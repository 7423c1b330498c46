/// Who decided a verdict: the bytes at hand, or Apple's verifyReceipt asked by the remote fallback.
///
/// Lives beside the verdict, below the remote client, so that a layer which records who decided (the ledger)
/// needs nothing of the client that asks Apple.
public enum DecidedBy: String, Sendable, Hashable, CustomStringConvertible {
    /// The bytes at hand: Apple was not asked, or gave no answer that may decide.
    case local
    /// Apple's verifyReceipt, asked by the remote fallback.
    case remote

    public var description: String { rawValue }
}
