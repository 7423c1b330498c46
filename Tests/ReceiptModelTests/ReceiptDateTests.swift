import Foundation
import ReceiptModel
import TestSupport
import Testing

struct ReceiptDateTests {
    @Test(arguments: [
        ("2020-07-22T17:39:08Z", Int64(1_595_439_548_000)),
        ("2020-07-22T18:33:15+0100", 1_595_439_195_000),
        ("2020-07-22T18:33:15+01:00", 1_595_439_195_000),
        ("2020-07-22T10:33:15-07:00", 1_595_439_195_000),
        ("2020-09-27T12:07:19.686Z", 1_601_208_439_686),
        ("2020-09-27T12:07:19.6Z", 1_601_208_439_600),
        ("2020-09-27T12:07:19.123456789Z", 1_601_208_439_123),
        ("1969-12-31T23:59:59Z", -1000),
        ("4001-01-01T00:00:00Z", 64_092_211_200_000),
        ("2024-02-29T00:00:00Z", 1_709_164_800_000),
    ])
    func parsesEveryFormReceiptsUse(text: String, milliseconds: Int64) {
        #expect(ReceiptDate(rfc3339: text)?.millisecondsSince1970 == milliseconds)
    }

    @Test(arguments: [
        "", "2020-07-22", "2020-07-22 17:39:08Z", "2020-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
        "2020-07-22T24:00:00Z", "2020-07-22T17:39:08", "2020-07-22T17:39:08Zjunk", "2020-07-22T17:39:08.Z",
        "2020-07-22T17:39:08.1234567890Z", "2020-07-22T17:39:08+1", "20x0-07-22T17:39:08Z",
    ])
    func rejectsTextThatIsNotADate(text: String) {
        #expect(ReceiptDate(rfc3339: text) == nil)
    }

    @Test func formatsLikeApple() throws {
        let date = try #require(ReceiptDate(rfc3339: "2020-07-22T17:39:08Z"))
        #expect(date.appleGMTString == "2020-07-22 17:39:08 Etc/GMT")
        #expect(date.applePacificString == "2020-07-22 10:39:08 America/Los_Angeles")
        let winter = try #require(ReceiptDate(rfc3339: "2013-08-01T07:00:00Z"))
        #expect(winter.applePacificString == "2013-08-01 00:00:00 America/Los_Angeles")
        let standard = try #require(ReceiptDate(rfc3339: "2020-01-15T12:00:00Z"))
        #expect(standard.applePacificString == "2020-01-15 04:00:00 America/Los_Angeles")
    }

    /// The hand-coded Los Angeles rules agree with the system's tz database at every daylight
    /// saving transition from 1970 to 2100, one second either side, and at 20,000 seeded instants.
    @Test(.enabled(if: TimeZone(identifier: "America/Los_Angeles") != nil, "tzdata is not installed"))
    func pacificTimeAgreesWithTheTimeZoneDatabase() throws {
        let zone = try #require(TimeZone(identifier: "America/Los_Angeles"))
        var instants: [Int64] = []
        var cursor = Date(timeIntervalSince1970: 0)
        let end = Date(timeIntervalSince1970: 4_102_444_800)  // 2100-01-01
        while let transition = zone.nextDaylightSavingTimeTransition(after: cursor), transition < end {
            let seconds = Int64(transition.timeIntervalSince1970)
            instants += [seconds - 1, seconds, seconds + 1]
            cursor = transition
        }
        #expect(instants.count > 300)
        var generator = SplitMix64(seed: 42)
        for _ in 0..<20_000 { instants.append(Int64(generator.next() % 4_102_444_800)) }

        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        for seconds in instants {
            let expected = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            let actual = ReceiptDate(clampingMillisecondsSince1970: seconds * 1000).applePacificString
            #expect(actual == expected + " America/Los_Angeles", "at \(seconds)")
        }
    }

    @Test func roundTripsThroughDescription() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<5000 {
            let milliseconds = Int64(generator.next() % 253_402_300_799_000)  // up to 9999-12-31
            let date = ReceiptDate(clampingMillisecondsSince1970: milliseconds)
            #expect(ReceiptDate(rfc3339: date.description) == date)
        }
    }
}
