#if canImport(FoundationEssentials)
    internal import FoundationEssentials
#else
    internal import Foundation
#endif

extension ReceiptDate {
    /// The system's wall clock, to the millisecond: the package's one reading of it. Library code calls it
    /// only where a caller asked for "now" (``ReceiptVerifier``'s default clock, for `ValidationTime.now`);
    /// the CLI and the server read it once per receipt or request.
    @Sendable public static func systemNow() -> ReceiptDate {
        ReceiptDate(clockSecondsSince1970: Date().timeIntervalSince1970)
    }
}
