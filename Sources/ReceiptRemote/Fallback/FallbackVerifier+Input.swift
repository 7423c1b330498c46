#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension FallbackVerifier {
    /// Verifies receipt text (verifyReceipt's `receipt-data`, iOS 6 plist text); see ``verify(_:request:)-([UInt8],_)``.
    public func verify(_ text: String, request: FallbackRequest = FallbackRequest()) async -> AttributedVerdict {
        await verify(Array(text.utf8), request: request)
    }

    /// Verifies a slice of receipt bytes; see ``verify(_:request:)-([UInt8],_)``.
    public func verify(_ bytes: ArraySlice<UInt8>, request: FallbackRequest = FallbackRequest()) async
        -> AttributedVerdict
    {
        await verify(Array(bytes), request: request)
    }

    /// Verifies receipt bytes held in Foundation's `Data`; see ``verify(_:request:)-([UInt8],_)``.
    public func verify(_ data: Data, request: FallbackRequest = FallbackRequest()) async -> AttributedVerdict {
        await verify(Array(data), request: request)
    }
}
