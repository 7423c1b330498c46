/// One date's three values as Apple's JSON writes them: the UTC date and time, the digits of the milliseconds, and
/// the Pacific date and time, each without its quotes or zone name (``AppleReceiptJSON/writeDate(_:_:_:_:to:)``).
///
/// Kept inline, with no allocation, so that a date written again is copied rather than converted again
/// (``RecentDates``): in a receipt with renewals the same dates come back entry after entry (the original purchase
/// date of every renewal, a purchase date equal to its original purchase date).
struct RenderedDate {
    /// The instant rendered.
    let milliseconds: Int64
    /// Each value in a vector of its own, written with one store (``OutputChunk/put(_:count:)``): the UTC and Pacific
    /// dates and times at most 20 bytes each (``CivilCalendar`` years -0001 and 10000 take five characters), the
    /// milliseconds of ``ReceiptDate/representableMilliseconds`` at most 14 digits and a sign.
    private let utc: SIMD32<UInt8>
    private let digits: SIMD32<UInt8>
    private let pacific: SIMD32<UInt8>
    /// How many bytes of each vector are the value's.
    private let utcCount: Int
    private let digitsCount: Int
    private let pacificCount: Int

    /// The room a chunk needs for the three values: each is stored whole, a vector at a time.
    static let room = 3 * MemoryLayout<SIMD32<UInt8>>.size

    /// The bytes ``init(_:)`` renders into: the values take at most 20 + 15 + 20, and the last vector loaded starts
    /// where the digits end (at most byte 35) and takes 32.
    private static let scratchSize = 128

    /// Converts `date` once to UTC and renders its three values.
    init(_ date: ReceiptDate) {
        milliseconds = date.millisecondsSince1970
        // Rendered one after the other into a zeroed buffer, then loaded a vector at a time from where each starts.
        let rendered = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.scratchSize) { buffer in
            buffer.initialize(repeating: 0)
            let ends = Self.render(date, into: buffer)
            let raw = UnsafeRawBufferPointer(buffer)
            let load = { (offset: Int) in raw.loadUnaligned(fromByteOffset: offset, as: SIMD32<UInt8>.self) }
            return (load(0), load(ends.utc), load(ends.digits), ends)
        }
        (utc, digits, pacific) = (rendered.0, rendered.1, rendered.2)
        utcCount = rendered.3.utc
        digitsCount = rendered.3.digits - rendered.3.utc
        pacificCount = rendered.3.pacific - rendered.3.digits
    }

    /// Writes the three values one after the other into `buffer` (at least 55 bytes); returns where each ends.
    private static func render(
        _ date: ReceiptDate, into buffer: UnsafeMutableBufferPointer<UInt8>
    ) -> (utc: Int, digits: Int, pacific: Int) {
        guard let base = buffer.baseAddress else { return (0, 0, 0) }
        var chunk = OutputChunk(base: base, capacity: buffer.count)
        let seconds = date.secondsSince1970
        let utc = CivilCalendar.DateTime(secondsSince1970: seconds)
        chunk.putDateTime(utc, separator: UInt8(ascii: " "))
        let utcEnd = chunk.count
        chunk.putDecimal(date.millisecondsSince1970)
        let digitsEnd = chunk.count
        let offset = PacificTime.offsetSeconds(atUTC: seconds, utcYear: utc.year)
        // The offset is a whole number of hours (−8 or −7): unless it takes the time back past midnight, the Pacific
        // date is the UTC one, and only the hour changes. Otherwise the calendar is asked again.
        assert(offset % 3600 == 0, "Pacific offsets are whole hours")
        var pacific = utc
        pacific.hour += offset / 3600
        if pacific.hour < 0 { pacific = CivilCalendar.DateTime(secondsSince1970: seconds + offset) }
        chunk.putDateTime(pacific, separator: UInt8(ascii: " "))
        return (utcEnd, digitsEnd, chunk.count)
    }

    /// Writes the UTC date and time, `2020-07-22 17:39:08`.
    func putUTC(to chunk: inout OutputChunk) { chunk.put(utc, count: utcCount) }

    /// Writes the digits of the milliseconds since 1970, `1595439548000`.
    func putMilliseconds(to chunk: inout OutputChunk) { chunk.put(digits, count: digitsCount) }

    /// Writes the Pacific date and time, daylight saving applied, `2020-07-22 10:39:08`.
    func putPacific(to chunk: inout OutputChunk) { chunk.put(pacific, count: pacificCount) }
}
