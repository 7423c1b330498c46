/// The UTC offset of `America/Los_Angeles` at an instant, from the United States daylight-saving
/// rules, so the `_pst` fields need neither tzdata nor Foundation.
///
/// Rules (transitions at 02:00 local time):
/// - from 2007: second Sunday of March to first Sunday of November (Energy Policy Act of 2005);
/// - 1987–2006: first Sunday of April to last Sunday of October;
/// - 1976–1986 and 1967–1973: last Sunday of April to last Sunday of October;
/// - 1974: January 6 to October 27; 1975: February 23 to October 26 (energy-crisis years);
/// - before 1967: standard time only (California's earlier local rules are not modelled; no
///   receipt date is that old).
enum PacificTime {
    static let standardOffset: Int64 = -8 * 3600
    static let daylightOffset: Int64 = -7 * 3600

    /// The offset from UTC in seconds (−28 800 or −25 200) at `secondsSince1970`.
    static func offsetSeconds(atUTC seconds: Int64) -> Int64 {
        offsetSeconds(atUTC: seconds, utcYear: CivilCalendar.DateTime(secondsSince1970: seconds).year)
    }

    /// The same, given the UTC year of the instant (which a caller rendering the UTC form has at hand).
    ///
    /// The local year differs from the UTC year only in the first eight hours of a UTC year, in January, when
    /// no year's daylight time is in force, so the UTC year's rules decide alike.
    static func offsetSeconds(atUTC seconds: Int64, utcYear year: Int64) -> Int64 {
        let bounds: DaylightSaving?
        if tabulatedYears.contains(year) {
            bounds = table[Int(year - tabulatedYears.lowerBound)]
        } else {
            bounds = daylightSaving(year: year)
        }
        guard let bounds else { return standardOffset }
        return seconds >= bounds.start && seconds < bounds.end ? daylightOffset : standardOffset
    }

    /// When daylight time starts and ends in a year, in seconds since 1970 UTC.
    struct DaylightSaving {
        let start: Int64
        let end: Int64
    }

    /// The years whose bounds are worked out once, on first use, instead of per date rendered: every year of
    /// daylight time up to 2199, far past any receipt.
    static let tabulatedYears: ClosedRange<Int64> = 1967...2199
    private static let table: [DaylightSaving?] = tabulatedYears.map { daylightSaving(year: $0) }

    private static func daylightSaving(year: Int64) -> DaylightSaving? {
        guard let (startDay, endDay) = daylightSavingDays(year: year) else { return nil }
        // 02:00 PST is 10:00 UTC when daylight time starts; 02:00 PDT is 09:00 UTC when it ends.
        return DaylightSaving(start: startDay * 86_400 + 10 * 3600, end: endDay * 86_400 + 9 * 3600)
    }

    /// The first and last day (days since 1970) of daylight saving time in `year`.
    private static func daylightSavingDays(year: Int64) -> (Int64, Int64)? {
        switch year {
        case 2007...:
            return (nthSunday(2, year: year, month: 3), nthSunday(1, year: year, month: 11))
        case 1987...2006:
            return (nthSunday(1, year: year, month: 4), lastSunday(year: year, month: 10))
        case 1976...1986, 1967...1973:
            return (lastSunday(year: year, month: 4), lastSunday(year: year, month: 10))
        case 1975:
            return (
                CivilCalendar.daysSince1970(year: 1975, month: 2, day: 23),
                CivilCalendar.daysSince1970(year: 1975, month: 10, day: 26)
            )
        case 1974:
            return (
                CivilCalendar.daysSince1970(year: 1974, month: 1, day: 6),
                CivilCalendar.daysSince1970(year: 1974, month: 10, day: 27)
            )
        default:
            return nil
        }
    }

    private static func nthSunday(_ n: Int64, year: Int64, month: Int64) -> Int64 {
        let first = CivilCalendar.daysSince1970(year: year, month: month, day: 1)
        let firstSunday = first + ReceiptDate.floorModulo(7 - CivilCalendar.weekday(daysSince1970: first), 7)
        return firstSunday + (n - 1) * 7
    }

    private static func lastSunday(year: Int64, month: Int64) -> Int64 {
        let last = CivilCalendar.daysSince1970(
            year: year, month: month, day: CivilCalendar.daysInMonth(year: year, month: month))
        return last - CivilCalendar.weekday(daysSince1970: last)
    }
}

extension ReceiptDate {
    /// Apple's UTC form: `2020-07-22 17:39:08 Etc/GMT`.
    package var appleGMTString: String { rendered { $0.putAppleGMT(self) } }

    /// Apple's Pacific form, daylight saving applied: `2020-07-22 10:39:08 America/Los_Angeles`.
    package var applePacificString: String { rendered { $0.putApplePacific(self) } }

    /// The longest of Apple's two forms: a date and time of at most 20 bytes and the longer zone name.
    static let appleFormMaximumLength = 20 + 20

    private func rendered(_ put: (inout OutputChunk) -> Void) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.appleFormMaximumLength) { buffer in
            guard let base = buffer.baseAddress else { return "" }
            var chunk = OutputChunk(base: base, capacity: buffer.count)
            put(&chunk)
            return String(decoding: chunk.written, as: UTF8.self)
        }
    }
}
