/// An instant in a receipt, with millisecond precision, parsed by hand from the RFC 3339 forms
/// receipts use.
///
/// Real receipts write `2020-07-22T17:39:08Z` and `2020-07-22T18:33:15+0100` (`docs/receipt-format.md`
/// §3.3); RFC 3339's `2020-07-22T18:33:15+01:00` and `2020-09-27T12:07:19.686Z` are accepted too. The
/// empty string means "absent" and is handled by the caller. Parsed by hand: no Foundation formatter.
public struct ReceiptDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z, always within ``representableMilliseconds``.
    public let millisecondsSince1970: Int64

    /// The instants a `ReceiptDate` can hold: the years 0000 to 9999 that RFC 3339 can write, with a day to
    /// spare on each side for UTC offsets (-0001-12-31 to 10000-01-01).
    ///
    /// The bound is the type's invariant, so every calendar, time-zone and rendering computation on a date is
    /// safe from overflow whatever the input said: a number from outside that falls outside it (an iOS 6
    /// `purchase-date-ms` of -9223372036854775808, say) never becomes a date.
    package static let representableMilliseconds: ClosedRange<Int64> = -62_167_305_600_000...253_402_387_199_999

    /// The instant `millisecondsSince1970` after the epoch; `nil` outside ``representableMilliseconds``.
    public init?(millisecondsSince1970: Int64) {
        guard Self.representableMilliseconds.contains(millisecondsSince1970) else { return nil }
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// The instant `milliseconds` after the epoch, clamped into ``representableMilliseconds``: for values
    /// that are not input, such as a clock reading.
    public init(clampingMillisecondsSince1970 milliseconds: Int64) {
        millisecondsSince1970 = min(
            max(milliseconds, Self.representableMilliseconds.lowerBound), Self.representableMilliseconds.upperBound)
    }

    /// The instant a wall clock reading of `seconds` since the epoch names, floored to the millisecond (NaN
    /// and infinities clamp to the range's ends).
    public init(clockSecondsSince1970 seconds: Double) {
        let milliseconds = (seconds * 1000).rounded(.down)
        guard milliseconds > Double(Self.representableMilliseconds.lowerBound) else {
            self.init(clampingMillisecondsSince1970: Self.representableMilliseconds.lowerBound)
            return
        }
        guard milliseconds < Double(Self.representableMilliseconds.upperBound) else {
            self.init(clampingMillisecondsSince1970: Self.representableMilliseconds.upperBound)
            return
        }
        self.init(clampingMillisecondsSince1970: Int64(milliseconds))
    }

    /// Whole seconds since the epoch, rounded towards negative infinity.
    public var secondsSince1970: Int64 { Self.floorDivide(millisecondsSince1970, 1000) }

    /// Parses RFC 3339 text; `nil` when it is not one of the accepted forms.
    public init?(rfc3339 text: String) {
        var text = text
        let parsed = text.withUTF8 { ReceiptDate(rfc3339: Array($0)[...]) }
        guard let parsed else { return nil }
        self = parsed
    }

    /// Parses RFC 3339 ASCII bytes; `nil` when they are not one of the accepted forms.
    public init?(rfc3339 bytes: ArraySlice<UInt8>) {
        guard let parsed = bytes.withUnsafeBufferPointer({ ReceiptDate(rfc3339: $0) }) else { return nil }
        self = parsed
    }

    /// The same, from bytes read in place.
    init?(rfc3339 bytes: UnsafeBufferPointer<UInt8>) {
        var cursor = DateCursor(bytes: bytes)
        guard let year = cursor.digits(4), cursor.skip(UInt8(ascii: "-")),
            let month = cursor.digits(2), cursor.skip(UInt8(ascii: "-")),
            let day = cursor.digits(2), cursor.skip(UInt8(ascii: "T")) || cursor.skip(UInt8(ascii: "t")),
            let hour = cursor.digits(2), cursor.skip(UInt8(ascii: ":")),
            let minute = cursor.digits(2), cursor.skip(UInt8(ascii: ":")),
            let second = cursor.digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilCalendar.daysInMonth(year: year, month: month),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }

        var milliseconds: Int64 = 0
        if cursor.skip(UInt8(ascii: ".")) {
            // Fractional seconds: keep milliseconds, ignore finer digits (at most nine accepted).
            var count = 0
            while let digit = cursor.digit() {
                if count < 3 { milliseconds = milliseconds * 10 + digit }
                count += 1
            }
            guard (1...9).contains(count) else { return nil }
            var scale = count
            while scale < 3 {
                milliseconds *= 10
                scale += 1
            }
        }

        var offsetSeconds: Int64 = 0
        if cursor.skip(UInt8(ascii: "Z")) || cursor.skip(UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else {
            let sign: Int64
            if cursor.skip(UInt8(ascii: "+")) {
                sign = 1
            } else if cursor.skip(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let offsetHours = cursor.digits(2) else { return nil }
            _ = cursor.skip(UInt8(ascii: ":"))
            guard let offsetMinutes = cursor.digits(2), offsetHours <= 23, offsetMinutes <= 59 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        }
        guard cursor.isAtEnd else { return nil }

        // Four-digit years and offsets under a day keep this inside ``representableMilliseconds``.
        let days = CivilCalendar.daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        millisecondsSince1970 = seconds * 1000 + milliseconds
    }

    /// `2020-07-22T17:39:08Z`, with `.mmm` when the instant has milliseconds.
    public var description: String {
        // A date and time of at most 20 bytes, `.mmm` and `Z`.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 25) { buffer in
            guard let base = buffer.baseAddress else { return "" }
            var chunk = OutputChunk(base: base, capacity: buffer.count)
            chunk.putRFC3339(self)
            return String(decoding: chunk.written, as: UTF8.self)
        }
    }

    public static func < (lhs: ReceiptDate, rhs: ReceiptDate) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    static func floorModulo(_ value: Int64, _ divisor: Int64) -> Int64 {
        value - floorDivide(value, divisor) * divisor
    }
}

/// Steps through ASCII date bytes.
private struct DateCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var isAtEnd: Bool { index == bytes.endIndex }

    mutating func skip(_ byte: UInt8) -> Bool {
        guard index < bytes.endIndex, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func digit() -> Int64? {
        guard index < bytes.endIndex, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else {
            return nil
        }
        defer { index += 1 }
        return Int64(bytes[index] - UInt8(ascii: "0"))
    }

    mutating func digits(_ count: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}
