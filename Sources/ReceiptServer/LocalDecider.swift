import ReceiptModel
public import ReceiptVerification

/// Decides every receipt locally with a ``ReceiptVerifier``; never asks Apple.
///
/// An iOS 6 receipt, or any receipt the verifier finds inconclusive, is answered 21003 (not
/// authenticated): without Apple, the server cannot prove it.
public struct LocalDecider: ReceiptDecider {
    /// The verifier; share one per configuration, it caches verified chains.
    public let verifier: ReceiptVerifier

    public init(verifier: ReceiptVerifier) {
        self.verifier = verifier
    }

    public func decide(_ request: DecisionRequest) async -> Decision {
        Self.decideLocally(request, verifier: verifier)
    }

    public var cacheStatistics: ChainCacheStatistics { verifier.cacheStatistics }

    /// Decodes the receipt once and verifies the decoded value (no second decode inside the verifier).
    public static func decideLocally(_ request: DecisionRequest, verifier: ReceiptVerifier) -> Decision {
        let (input, verdict) = verifier.decodeAndVerify(request.receiptData[...], validationTime: request.validationTime)
        return Decision(verdict: verdict, input: input)
    }
}
