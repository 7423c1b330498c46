internal import Foundation

/// Inputs that hit a bug already reported and being fixed, skipped so it does not stop every run before the
/// fuzzer gets anywhere else. Each entry names the issue; remove it with the fix. `FUZZ_KNOWN_ISSUES=1` in the
/// environment turns the skipping off, to check whether a fix holds.
public enum KnownIssue {
    static let enabled = ProcessInfo.processInfo.environment["FUZZ_KNOWN_ISSUES"] != "1"

    /// Issue 10, class 3: `ReceiptDate.description` traps (arithmetic overflow in `floorModulo`,
    /// ReceiptDate.swift) for an instant within a second of `Int64.min` milliseconds, e.g. an iOS 6
    /// `purchase-date-ms` of -9223372036854775808.
    public static func isNearInt64MinDate(milliseconds: Int64?) -> Bool {
        guard enabled, let milliseconds else { return false }
        return milliseconds < Int64.min + 1000
    }
}
