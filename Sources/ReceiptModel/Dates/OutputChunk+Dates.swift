/// The date forms receipts are rendered in, written straight into an ``OutputChunk``.
extension OutputChunk {
    /// `2020-07-22 17:39:08` (with `separator` between date and time): years 0000-9999 as four digits, the
    /// two years ``ReceiptDate`` holds outside them (-0001 and 10000) as written by
    /// ``CivilCalendar/pad(_:width:)``. At most 20 bytes.
    mutating func putDateTime(_ time: CivilCalendar.DateTime, separator: UInt8) {
        if (0...9999).contains(time.year) {
            putTwoDigits(time.year / 100)
            putTwoDigits(time.year % 100)
        } else {
            for byte in CivilCalendar.pad(time.year, width: 4).utf8 { put(byte) }
        }
        put(UInt8(ascii: "-"))
        putTwoDigits(time.month)
        put(UInt8(ascii: "-"))
        putTwoDigits(time.day)
        put(separator)
        putTwoDigits(time.hour)
        put(UInt8(ascii: ":"))
        putTwoDigits(time.minute)
        put(UInt8(ascii: ":"))
        putTwoDigits(time.second)
    }

    /// Writes ``ReceiptDate/description``'s characters: `2020-07-22T17:39:08Z`, `.mmm` before the `Z` when the
    /// instant has milliseconds.
    mutating func putRFC3339(_ date: ReceiptDate) {
        putDateTime(CivilCalendar.DateTime(secondsSince1970: date.secondsSince1970), separator: UInt8(ascii: "T"))
        let fraction = ReceiptDate.floorModulo(date.millisecondsSince1970, 1000)
        if fraction != 0 {
            put(UInt8(ascii: "."))
            put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / 100))
            putTwoDigits(fraction % 100)
        }
        put(UInt8(ascii: "Z"))
    }

    /// Writes ``ReceiptDate/appleGMTString``'s characters.
    mutating func putAppleGMT(_ date: ReceiptDate) {
        putDateTime(CivilCalendar.DateTime(secondsSince1970: date.secondsSince1970), separator: UInt8(ascii: " "))
        put(" Etc/GMT")
    }

    /// Writes ``ReceiptDate/applePacificString``'s characters.
    mutating func putApplePacific(_ date: ReceiptDate) {
        let seconds = date.secondsSince1970
        putDateTime(
            CivilCalendar.DateTime(secondsSince1970: seconds + PacificTime.offsetSeconds(atUTC: seconds)),
            separator: UInt8(ascii: " "))
        put(" America/Los_Angeles")
    }
}
