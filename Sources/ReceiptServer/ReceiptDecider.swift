public import ReceiptRemote
public import ReceiptVerification

/// What the routes ask to verify a receipt: `ReceiptRemote`'s ``ReceiptRemote/FallbackVerifier`` (local
/// only when it has no remote client), or a test's scripted stand-in (a slow one, a blocking one).
public protocol ReceiptDecider: Sendable {
    /// Verifies `receiptData` as the client sent it. Never throws: every outcome, including "Apple could
    /// not be reached", is a value.
    func verify(_ receiptData: [UInt8], request: FallbackRequest) async -> AttributedVerdict

    /// The local verifier's chain-cache counters, for `/metrics`.
    var cacheStatistics: ChainCacheStatistics { get }
}

extension FallbackVerifier: ReceiptDecider {
    public var cacheStatistics: ChainCacheStatistics { verifier.cacheStatistics }
}
