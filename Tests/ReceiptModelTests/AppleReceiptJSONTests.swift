import Foundation
import ReceiptModel
import TestSupport
import Testing

/// The rendered `receipt` object must equal Apple's own verifyReceipt response, key by key.
@Suite(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
struct AppleReceiptJSONTests {
    static let name = "rc-sampleapp-sandbox-2020"

    static func renderedAndApple() throws -> ([String: Any], [String: Any]) {
        let receipt = try AppReceipt(berEncoded: try SharedTestData.receiptBytes(name))
        let rendered = try JSONSerialization.jsonObject(with: Data(AppleReceiptJSON.render(receipt.payload)))
        let response = try SharedTestData.json(
            at: SharedTestData.receiptsDirectory.appendingPathComponent("\(name).verifyReceipt.json"))
        return (try #require(rendered as? [String: Any]), try #require(response["receipt"] as? [String: Any]))
    }

    @Test func everyReceiptDerivedKeyEqualsApplesResponse() throws {
        let (rendered, apple) = try Self.renderedAndApple()
        for (key, value) in apple where !key.hasPrefix("request_date") && key != "in_app" {
            #expect(
                Self.same(rendered[key], value),
                "receipt.\(key): ours \(String(describing: rendered[key])), Apple's \(value)")
        }
        let ours = try #require(rendered["in_app"] as? [[String: Any]])
        let theirs = try #require(apple["in_app"] as? [[String: Any]])
        #expect(ours.count == theirs.count)
        for (index, (mine, reference)) in zip(ours, theirs).enumerated() {
            for (key, value) in reference {
                #expect(
                    Self.same(mine[key], value),
                    "in_app[\(index)].\(key): ours \(String(describing: mine[key])), Apple's \(value)")
            }
            let extra = Set(mine.keys).subtracting(reference.keys).subtracting(["unknown_attributes"])
            #expect(extra.isEmpty, "in_app[\(index)] has keys Apple does not: \(extra)")
        }
    }

    @Test func rendersOnlyApplesKeysPlusTheUnknownAttributes() throws {
        let (rendered, apple) = try Self.renderedAndApple()
        let extra = Set(rendered.keys).subtracting(apple.keys)
        #expect(extra == ["unknown_attributes"])
        let unknown = try #require(rendered["unknown_attributes"] as? [[String: Any]])
        // Opaque value (4), SHA-1 hash (5), the undocumented 6, 7, 8, 9, 11, 13, 14, 20, 25 and age rating (10).
        #expect(Set(unknown.compactMap { $0["type"] as? Int }) == [4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 20, 25])
    }

    @Test func rendersTheRequestDateOnlyWhenGiven() throws {
        let receipt = try AppReceipt(berEncoded: try SharedTestData.receiptBytes(Self.name))
        let withoutDate = String(decoding: AppleReceiptJSON.render(receipt.payload), as: UTF8.self)
        #expect(!withoutDate.contains("request_date"))
        let at = try #require(ReceiptDate(rfc3339: "2020-07-22T17:54:46.402Z"))
        let object = try JSONSerialization.jsonObject(
            with: Data(AppleReceiptJSON.render(receipt.payload, requestDate: at)))
        let rendered = try #require(object as? [String: Any])
        #expect(rendered["request_date"] as? String == "2020-07-22 17:54:46 Etc/GMT")
        #expect(rendered["request_date_ms"] as? String == "1595440486402")
        #expect(rendered["request_date_pst"] as? String == "2020-07-22 10:54:46 America/Los_Angeles")
    }

    /// Equal value and equal JSON type (a number is not a string, a boolean is not a number).
    static func same(_ lhs: Any?, _ rhs: Any) -> Bool {
        switch (lhs, rhs) {
        case let (l as String, r as String): return l == r
        case let (l as NSNumber, r as NSNumber):
            return String(cString: l.objCType) == String(cString: r.objCType) && l == r
        default: return false
        }
    }
}
