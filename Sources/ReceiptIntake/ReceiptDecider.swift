public import ReceiptRemote
public import ReceiptVerification

/// What the intake asks to verify a receipt, in the fallback's two halves: `ReceiptRemote`'s
/// ``ReceiptRemote/FallbackVerifier`` (local only when it has no remote client), or a test's scripted stand-in (a
/// slow one, a blocking one, one that counts).
///
/// Two halves, so that the intake consults the ledger between them and a receipt is verified once, whether or not
/// Apple is asked after.
public protocol ReceiptDecider: Sendable {
    /// Verifies `receiptData` (as the client sent it) locally and says whether Apple would be asked.
    func verifyLocally(_ receiptData: ArraySlice<UInt8>, request: FallbackRequest) async -> LocalVerification

    /// Asks Apple when `local` calls for it (and remote is on), else answers `local`'s verdict. Never throws: every
    /// outcome, including "Apple could not be reached", is a value.
    func askApple(_ local: LocalVerification, request: FallbackRequest) async -> AttributedVerdict

    /// The local verifier's chain-cache counters, for `/metrics`.
    var cacheStatistics: ChainCacheStatistics { get }

    /// The policy applied to a request that names none: the operator's. A caller may only narrow it (a
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
