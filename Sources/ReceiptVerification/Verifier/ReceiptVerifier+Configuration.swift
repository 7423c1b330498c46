public import ReceiptModel

extension ReceiptVerifier {
    /// Everything a verifier is told up front: anchors, the default validation time, the default
    /// policy and the chain-cache size.
    public struct Configuration: Sendable {
        /// The certificates chains may end at.
        public var trustAnchors: TrustAnchors
        /// The validation time used when a call does not name one.
        public var validationTime: ValidationTime
        /// The policy used when a call does not name one.
        public var policy: ReceiptPolicy
        /// The most verified chains remembered (Apple uses a handful of chains at a time).
        public var chainCacheCapacity: Int
        /// Where ``ValidationTime/now`` reads "now" when a call does not give it; read for nothing else.
        public var clock: @Sendable () -> ReceiptDate

        /// Apple's pinned roots, validation at the receipt's creation date, no policy, 256 cached chains.
        public init(
            trustAnchors: TrustAnchors = TrustAnchors(), validationTime: ValidationTime = .receiptCreation,
            policy: ReceiptPolicy = ReceiptPolicy(), chainCacheCapacity: Int = 256,
            clock: @escaping @Sendable () -> ReceiptDate = ReceiptDate.systemNow
        ) {
            self.clock = clock
            self.trustAnchors = trustAnchors
            self.validationTime = validationTime
            self.policy = policy
            self.chainCacheCapacity = chainCacheCapacity
        }
    }
}
