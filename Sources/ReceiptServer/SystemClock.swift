internal import Foundation
public import ReceiptModel

/// The system's wall clock, read only by the server (the verification library never reads a clock).
public enum SystemClock {
    /// The current instant, to the millisecond.
    @Sendable public static func now() -> ReceiptDate {
        ReceiptDate(millisecondsSince1970: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
