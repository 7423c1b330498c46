public import ReceiptVerification

/// Decides one receipt: locally (``LocalDecider``) or local-first with a fallback to Apple.
///
/// The server's routes depend only on this protocol, so the remote fallback (target `ReceiptRemote`)
/// plugs in without touching them, and tests can script decisions (a slow one, a blocking one).
public protocol ReceiptDecider: Sendable {
    /// Decides the receipt in `request`. Never throws: every outcome, including "Apple could not be
    /// reached", is a value.
    func decide(_ request: DecisionRequest) async -> Decision

    /// The local verifier's chain-cache counters, for `/metrics`.
    var cacheStatistics: ChainCacheStatistics { get }
}
