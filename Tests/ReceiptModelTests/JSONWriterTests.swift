import Foundation
import TestSupport
import Testing

@_spi(Fuzzing) @testable import ReceiptModel

/// The writer's fast paths (members written in one append straight into the buffer) must write exactly what
/// the plain forms write: numbers as `String(_:)` does, strings escaped as RFC 8259 requires, dates as the
/// standalone Apple forms.
struct JSONWriterTests {
    @Test(arguments: [
        Int64(0), 5, 9, 10, 11, 99, 100, 101, 999, 1000, 1234, 99_999, 1_575_982_498_000, 1_000_000_000_000_000_000,
        Int64.max, Int64.max - 1, Int64.min, Int64.min + 1, -1, -9, -10, -99, -100, -12_345,
    ])
    func numbersAreWrittenAsTheirDecimalText(value: Int64) {
        var writer = JSONWriter()
        writer.beginArray()
        writer.number(value)
        writer.number(value)
        writer.endArray()
        #expect(writer.string == "[\(value),\(value)]")
        var bytes: [UInt8] = [UInt8(ascii: "x")]
        JSONWriter.appendDecimal(value, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "x\(value)")
    }

    /// The count of digits is decided at each power of ten: the values on either side of every one, both signs.
    @Test func numbersBesidePowersOfTenAreWrittenAsTheirDecimalText() {
        var power: Int64 = 1
        for exponent in 0...18 {
            for value in [power - 1, power, power + 1] {
                var bytes: [UInt8] = []
                JSONWriter.appendDecimal(value, to: &bytes)
                JSONWriter.appendDecimal(-value, to: &bytes)
                #expect(String(decoding: bytes, as: UTF8.self) == "\(value)\(-value)", "10^\(exponent)")
            }
            if exponent < 18 { power *= 10 }
        }
    }

    @Test func randomNumbersAreWrittenAsTheirDecimalText() {
        var generator = SplitMix64(seed: 11)
        for _ in 0..<20_000 {
            // Every digit count: shift a random value right by a random amount.
            let value = Int64(bitPattern: generator.next()) >> (generator.next() % 64)
            var writer = JSONWriter()
            writer.number(value)
            #expect(writer.string == String(value))
        }
    }

    @Test(arguments: [
        ("com.example.pro", #""com.example.pro""#),
        ("", #""""#),
        (#"a"b"#, #""a\"b""#),
        (#"a\b"#, #""a\\b""#),
        ("line\nbreak\ttab\rreturn", #""line\nbreak\ttab\rreturn""#),
        ("\u{01}\u{1F}", #""\u0001\u001f""#),
        ("café ✓", "\"café ✓\""),
    ])
    func stringsEscapeWhatJSONRequires(text: String, expected: String) throws {
        for written in [Self.written { $0.string(text) }, Self.written { $0.string(utf8: Array(text.utf8)[...]) }] {
            #expect(written == expected)
            let decoded = try JSONSerialization.jsonObject(with: Data(written.utf8), options: .fragmentsAllowed)
            #expect(decoded as? String == text)
        }
    }

    @Test func invalidUTF8IsRepaired() {
        #expect(Self.written { $0.string(utf8: [0x61, 0xFF, 0x62][...]) } == "\"a\u{FFFD}b\"")
    }

    @Test func fieldsWithAStaticNameMatchKeyThenValue() {
        for value in ["plain.id-1", "needs \"escaping\"", "tab\there", "ünïcode"] {
            let bytes = Array(value.utf8)[...]
            let fast = Self.written { writer in
                writer.beginObject()
                writer.field("a" as StaticString, utf8: bytes)
                writer.field("b" as StaticString, utf8: bytes)
                writer.endObject()
            }
            let plain = Self.written { writer in
                writer.beginObject()
                writer.key("a")
                writer.string(utf8: bytes)
                writer.key("b")
                writer.string(utf8: bytes)
                writer.endObject()
            }
            #expect(fast == plain)
        }
    }

    /// A date's three members, written in one append from one UTC conversion, equal the standalone forms at
    /// random instants over the whole range a `ReceiptDate` holds, and at its two ends.
    @Test func datesInOneAppendMatchTheStandaloneForms() throws {
        var generator = SplitMix64(seed: 3)
        let range = ReceiptDate.representableMilliseconds
        let span = UInt64(range.upperBound - range.lowerBound)
        var instants = [range.lowerBound, range.upperBound, 0, -1, 1_575_982_498_000]
        // Either side of the hour at which the Pacific date is the UTC one (07:00 UTC in daylight time, 08:00 in
        // standard time), of the 2020 changes of offset, of a new year, and of 1970.
        let boundaries = [
            "2020-07-15 06:59:59", "2020-07-15 07:00:00", "2020-01-15 07:59:59", "2020-01-15 08:00:00",
            "2020-03-08 09:59:59", "2020-03-08 10:00:00", "2020-11-01 08:59:59", "2020-11-01 09:00:00",
            "2021-01-01 07:59:59", "2021-01-01 08:00:00", "1969-12-31 07:59:59", "1969-12-31 08:00:00",
        ]
        instants += [
            1_594_796_399_000, 1_594_796_400_000, 1_579_075_199_000, 1_579_075_200_000, 1_583_661_599_000,
            1_583_661_600_000, 1_604_221_199_000, 1_604_221_200_000, 1_609_487_999_000, 1_609_488_000_000, -57_601_000,
            -57_600_000,
        ]
        #expect(
            instants.suffix(boundaries.count).map { ReceiptDate(clampingMillisecondsSince1970: $0).appleGMTString }
                == boundaries.map { "\($0) Etc/GMT" })
        for _ in 0..<20_000 { instants.append(range.lowerBound + Int64(generator.next() % span)) }
        for milliseconds in instants {
            let date = try #require(ReceiptDate(millisecondsSince1970: milliseconds))
            let written = Self.written { writer in
                writer.beginObject()
                AppleReceiptJSON.writeDate(date, "d", "d_ms", "d_pst", to: &writer)
                writer.endObject()
            }
            let expected =
                #"{"d":"\#(date.appleGMTString)","d_ms":"\#(milliseconds)","d_pst":"\#(date.applePacificString)"}"#
            #expect(written == expected)
        }
    }

    /// One writer given dates that come back (the last, the one before, one from further back, with other members
    /// between them) writes each as a writer that never saw a date before: copying a recent date's values never
    /// gives another date's, whatever the order.
    @Test func datesThatComeBackAreWrittenAsTheFirstTime() throws {
        var generator = SplitMix64(seed: 29)
        // Five instants, so two recent ones never hold them all; the first two differ by a millisecond only.
        let pool: [Int64] = [1_575_982_498_000, 1_575_982_498_001, 1_594_796_400_000, 1_583_661_600_999, -1]
        var shared = JSONWriter(capacity: 0)
        shared.beginArray()
        var expected: [String] = []
        for position in 0..<2_000 {
            let milliseconds = pool[Int(generator.next() % UInt64(pool.count))]
            let date = try #require(ReceiptDate(millisecondsSince1970: milliseconds))
            let member = Self.written { writer in
                writer.beginObject()
                AppleReceiptJSON.writeDate(date, "d", "d_ms", "d_pst", to: &writer)
                writer.endObject()
            }
            expected.append(member)
            shared.beginObject()
            AppleReceiptJSON.writeDate(date, "d", "d_ms", "d_pst", to: &shared)
            if position % 3 == 0 { shared.field("n", Int64(position)) }
            shared.endObject()
            if position % 3 == 0 {
                expected[expected.count - 1].insert(
                    contentsOf: #","n":\#(position)"#, at: member.index(before: member.endIndex))
            }
        }
        shared.endArray()
        #expect(shared.string == "[" + expected.joined(separator: ",") + "]")
    }

    static func written(_ write: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter(capacity: 0)
        write(&writer)
        return writer.string
    }

    /// What a renderer reserves follows the purchase count only as far as the records' own size allows: the
    /// count comes from input.
    @Test func reservationsAreBoundedByTheRecordsSize() {
        #expect(
            AppleReceiptJSON.reservation(entries: 187, recordBytes: 70_000) == 187 * AppleReceiptJSON.typicalEntrySize)
        // 700,000 minimal 12-byte records (an 8 MiB input) reserve eight times their size, not 1,100 bytes each.
        #expect(AppleReceiptJSON.reservation(entries: 700_000, recordBytes: 8_400_000) == 8 * 8_400_000)
        #expect(AppleReceiptJSON.reservation(entries: Int.max, recordBytes: Int.max) == 1 << 28)
        #expect(AppleReceiptJSON.reservation(entries: -1, recordBytes: 10) == 0)
    }
}
