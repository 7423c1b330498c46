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

    /// The policy applied to a request that names none: the operator's. A route may only narrow it (a
    /// `/v1/verify` `device_id` adds a device check to it), never replace it.
    var policy: ReceiptPolicy { get }

    /// The local verifier that decides JWS (StoreKit 2, notifications): Apple is never asked about one.
    var jwsVerifier: ReceiptVerifier { get }
}

extension FallbackVerifier: ReceiptDecider {
    public var cacheStatistics: ChainCacheStatistics { verifier.cacheStatistics }

    /// The local verifier's configured policy.
    public var policy: ReceiptPolicy { verifier.configuration.policy }

    public var jwsVerifier: ReceiptVerifier { verifier }
}
