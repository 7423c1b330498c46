/// Explicit bounds the reader enforces, so that hostile input cannot exhaust the stack or memory.
public struct BERLimits: Sendable, Hashable {
    /// The deepest nesting of constructed elements the reader descends into. Receipts need 10
    /// (ContentInfo → SignedData → … → in-app attribute value); certificates need about 12.
    public var maximumDepth: Int

    /// The most segments a constructed string may have before joining them is refused.
    public var maximumStringSegments: Int

    @inlinable
    public init(maximumDepth: Int = 32, maximumStringSegments: Int = 4096) {
        self.maximumDepth = maximumDepth
        self.maximumStringSegments = maximumStringSegments
    }

    /// 32 levels, 4,096 string segments.
    public static let `default` = BERLimits()
}
