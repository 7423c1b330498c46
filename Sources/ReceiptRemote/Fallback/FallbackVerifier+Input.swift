#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension FallbackVerifier {
    /// Verifies receipt bytes; see ``verify(_:request:)-(ArraySlice<UInt8>,_)``.
    public func verify(_ bytes: [UInt8], request: FallbackRequest = FallbackRequest()) async -> AttributedVerdict {
        await verify(bytes[...], request: request)
    }

    /// Verifies receipt text (verifyReceipt's `receipt-data`, iOS 6 plist text); see
    /// ``verify(_:request:)-(ArraySlice<UInt8>,_)``.
    public func verify(_ text: String, request: FallbackRequest = FallbackRequest()) async -> AttributedVerdict {
        await verify(Array(text.utf8)[...], request: request)
    }

    /// Verifies receipt bytes held in Foundation's `Data`; see ``verify(_:request:)-(ArraySlice<UInt8>,_)``.
    public func verify(_ data: Data, request: FallbackRequest = FallbackRequest()) async -> AttributedVerdict {
        await verify(Array(data)[...], request: request)
    }
}
