public import ReceiptModel

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension ReceiptVerifier {
    /// Verifies receipt bytes held in Foundation's `Data` (e.g. a request body or a file read with
    /// Foundation); see ``verify(_:validationTime:policy:now:)-(ArraySlice<UInt8>,_,_,_)``.
    public func verify(
        _ data: Data, validationTime: ValidationTime? = nil, policy: ReceiptPolicy? = nil,
        now: ReceiptDate? = nil
    ) -> Verdict {
        verify(Array(data)[...], validationTime: validationTime, policy: policy, now: now)
    }
}
