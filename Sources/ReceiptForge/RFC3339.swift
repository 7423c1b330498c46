import ReceiptModel

/// Formats instants as the `YYYY-MM-DDTHH:MM:SSZ` text Apple writes in receipts, with ``ReceiptDate``'s
/// own calendar (the package's one), so the forge needs no date formatter and no time zone database.
public enum RFC3339 {
    /// `secondsSince1970` as `YYYY-MM-DDTHH:MM:SSZ` (UTC), for instants of years 0000–9999.
    public static func format(secondsSince1970 seconds: Int64) -> String {
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        return ReceiptDate(
            clampingMillisecondsSince1970: milliseconds.overflow
                ? (seconds < 0 ? .min : .max) : milliseconds.partialValue
        )
        .description
    }
}
