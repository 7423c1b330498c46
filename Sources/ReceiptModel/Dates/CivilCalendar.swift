/// Proleptic Gregorian calendar arithmetic on day counts, without Foundation.
///
/// Converts between days since 1970-01-01 and year/month/day by the classic era-of-400-years
/// method, so any Int64 instant a receipt can hold converts exactly and fast.
enum CivilCalendar {
    /// A broken-down date and time.
    struct DateTime: Equatable {
        var year: Int64
        var month: Int64
        var day: Int64
        var hour: Int64
        var minute: Int64
        var second: Int64

        init(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64) {
            (self.year, self.month, self.day) = (year, month, day)
            (self.hour, self.minute, self.second) = (hour, minute, second)
        }

        init(secondsSince1970 seconds: Int64) {
            let days = ReceiptDate.floorDivide(seconds, 86_400)
            let secondOfDay = seconds - days * 86_400
            let (year, month, day) = CivilCalendar.civilDate(daysSince1970: days)
            self.init(
                year: year, month: month, day: day,
                hour: secondOfDay / 3600, minute: (secondOfDay % 3600) / 60, second: secondOfDay % 60)
        }
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date.
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        // Count years from March so the leap day is the last day of the year.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let monthFromMarch = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// 0 = Sunday … 6 = Saturday. 1970-01-01 was a Thursday.
    static func weekday(daysSince1970 days: Int64) -> Int64 {
        ReceiptDate.floorModulo(days + 4, 7)
    }

    /// Zero-padded decimal, with a leading minus for negative values.
    static func pad(_ value: Int64, width: Int) -> String {
        let digits = String(value.magnitude)
        let padding = String(repeating: "0", count: max(0, width - digits.count))
        return (value < 0 ? "-" : "") + padding + digits
    }
}
