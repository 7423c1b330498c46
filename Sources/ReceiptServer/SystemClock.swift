internal import Foundation
public import ReceiptModel

/// The system's wall clock, read only by the server (the verification library never reads a clock).
public enum SystemClock {
    /// The current instant, to the millisecond.
    @Sendable public static func now() -> ReceiptDate {
        ReceiptDate(clockSecondsSince1970: Date().timeIntervalSince1970)
    }
}
