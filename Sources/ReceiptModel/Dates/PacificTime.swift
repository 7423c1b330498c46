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
        let year = CivilCalendar.DateTime(secondsSince1970: seconds + standardOffset).year
        guard let (startDay, endDay) = daylightSavingDays(year: year) else { return standardOffset }
        // 02:00 PST is 10:00 UTC when daylight time starts; 02:00 PDT is 09:00 UTC when it ends.
        let start = startDay * 86_400 + 10 * 3600
        let end = endDay * 86_400 + 9 * 3600
        return seconds >= start && seconds < end ? daylightOffset : standardOffset
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
    public var appleGMTString: String {
        var bytes: [UInt8] = []
        appendAppleGMT(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Apple's Pacific form, daylight saving applied: `2020-07-22 10:39:08 America/Los_Angeles`.
    public var applePacificString: String {
        var bytes: [UInt8] = []
        appendApplePacific(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``appleGMTString``'s characters to `bytes`.
    public func appendAppleGMT(to bytes: inout [UInt8]) {
        CivilCalendar.DateTime(secondsSince1970: secondsSince1970).append(to: &bytes)
        let zone: StaticString = " Etc/GMT"
        zone.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends ``applePacificString``'s characters to `bytes`.
    public func appendApplePacific(to bytes: inout [UInt8]) {
        let seconds = secondsSince1970
        CivilCalendar.DateTime(secondsSince1970: seconds + PacificTime.offsetSeconds(atUTC: seconds)).append(to: &bytes)
        let zone: StaticString = " America/Los_Angeles"
        zone.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
