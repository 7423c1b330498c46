import Foundation
@_spi(Fuzzing) import ReceiptModel
@_spi(Fuzzing) import ReceiptRemote
import ReceiptVerification
import TestSupport
import Testing

/// The status-0 body reuses the `in_app` entries it rendered for `latest_receipt_info` (``RenderedPurchases``);
/// the bytes must be exactly those of rendering every entry afresh.
struct VerifyReceiptBodyTests {
    /// Every receipt at hand: the minted fixtures with purchases, and the real ones when ../shared is there.
    static func payloads() throws -> [(String, ReceiptPayload)] {
        var found: [(String, ReceiptPayload)] = []
        for name in ["valid-sha256", "valid-large-1200-purchases", "valid-sha1"] {
            let receipt = try AppReceipt(berEncoded: try RemoteTestData.fixture("\(name).receipt"))
            found.append((name, receipt.payload))
        }
        if SharedTestData.isAvailable {
            for name in SharedTestData.receiptNames {
                if let receipt = try? AppReceipt(berEncoded: try SharedTestData.receiptBytes(name)) {
                    found.append((name, receipt.payload))
                }
            }
        }
        return found
    }

    /// The body as it was written before entries were reused: every entry rendered where it stands.
    static func renderedAfresh(_ payload: ReceiptPayload, latest: [InAppPurchase], requestDate: ReceiptDate)
        -> [UInt8]
    {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("status", 0)
        writer.field("environment", "Sandbox")
        writer.key("receipt")
        AppleReceiptJSON.write(payload, requestDate: requestDate, to: &writer)
        writer.key("latest_receipt_info")
        writer.beginArray()
        for purchase in latest { AppleReceiptJSON.write(purchase, to: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    @Test func reusedEntriesAreTheBytesOfEntriesRenderedAfresh() throws {
        let requestDate = ReceiptDate(clampingMillisecondsSince1970: 1_767_225_600_000)
        var reused = 0
        for (name, payload) in try Self.payloads() {
            for excludingOld in [false, true] {
                let latest = LatestReceiptInfo.purchases(in: payload, excludingOld: excludingOld)
                guard !latest.isEmpty else { continue }
                if LatestReceiptInfo.renderedOnce(payload, latestCount: latest.count) != nil { reused += 1 }
                let body = VerifyReceiptBody.valid(
                    payload: payload, environment: "Sandbox", requestDate: requestDate, latestReceiptInfo: latest,
                    latestReceipt: nil)
                #expect(body == Self.renderedAfresh(payload, latest: latest, requestDate: requestDate), "\(name)")
                // The server's own path: the same entries named by their positions in `in_app`, not copied out.
                let positions = LatestReceiptInfo.positions(in: payload, excludingOld: excludingOld)
                let byPosition = VerifyReceiptBody.valid(
                    payload: payload, environment: "Sandbox", requestDate: requestDate,
                    latest: .positions(positions), latestReceipt: nil)
                #expect(byPosition == body, "\(name)")
            }
        }
        #expect(reused > 0, "no receipt at hand exercised the reuse")
    }

    /// `/v1/verify` lists the same `latest_receipt_info` as verifyReceipt, byte for byte.
    @Test func theV1AnswerListsVerifyReceiptsLatestEntries() throws {
        let requestDate = ReceiptDate(clampingMillisecondsSince1970: 1_767_225_600_000)
        let verifier = try RemoteTestData.verifier()
        for name in ["valid-sha256", "valid-large-1200-purchases", "valid-sha1"] {
            let result = AttributedVerdict.local(verifier.verify(try RemoteTestData.fixture("\(name).receipt")))
            for excludingOld in [false, true] {
                let v1 = VerdictJSON.response(result, requestDate: requestDate, excludeOldTransactions: excludingOld)
                let apple = VerifyReceiptBody.answer(
                    result, status: 0, requestDate: requestDate, excludeOldTransactions: excludingOld,
                    receiptData: nil)
                // The member's bytes in each answer, found by the package's own reader.
                let listed = try [v1, apple].map { body in
                    var reader = JSONReader(body, maximumDepth: 64)
                    let member = try #require(
                        try reader.topLevelMembers().first { $0.key == "latest_receipt_info" }, "\(name)")
                    return Array(body[member.range])
                }
                #expect(listed[0] == listed[1], "\(name)")
                #expect(listed[0].count > 2, "\(name): an empty latest_receipt_info")
            }
        }
    }

    /// A purchase of another receipt whose record starts at the same offset, but holds other bytes, is rendered,
    /// not taken for the entry rendered at that offset.
    @Test func aRecordOfAnotherReceiptIsRenderedNotReused() throws {
        let bytes = try RemoteTestData.fixture("valid-sha256.receipt")
        // The same receipt with one letter of a product id changed: every record at the same offset as before.
        let productID = Array("org.example.receiptforge.pro".utf8)
        let start = try #require(
            (0...(bytes.count - productID.count)).first { bytes[$0..<($0 + productID.count)].elementsEqual(productID) })
        var changed = bytes
        changed[start + productID.count - 1] = UInt8(ascii: "p")
        let original = try AppReceipt(berEncoded: bytes).payload
        let other = try AppReceipt(berEncoded: changed).payload
        #expect(
            original.inAppPurchases.map(\.encoded.startIndex) == other.inAppPurchases.map(\.encoded.startIndex))

        let rendered = RenderedPurchases(original.inAppPurchases)
        var writer = JSONWriter()
        AppleReceiptJSON.write(other.inAppPurchases, reusing: rendered, to: &writer)
        var afresh = JSONWriter()
        AppleReceiptJSON.write(other.inAppPurchases, reusing: nil, to: &afresh)
        #expect(writer.bytes == afresh.bytes)
        #expect(writer.string.contains("org.example.receiptforge.prp"))
    }
}
