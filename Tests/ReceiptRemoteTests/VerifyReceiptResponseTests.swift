import Foundation
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import TestSupport
import Testing

/// Decoding Apple's answers: both shapes, unknown keys kept, the receipt passed through byte for byte,
/// and hostile bodies as typed errors.
@Suite struct VerifyReceiptResponseTests {
    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func decodesApplesRealResponse() throws {
        let url = SharedTestData.receiptsDirectory.appendingPathComponent(
            "rc-sampleapp-sandbox-2020.verifyReceipt.json")
        let body = try SharedTestData.bytes(at: url)
        let response = try VerifyReceiptResponse(body: body)
        #expect(response.status == 0)
        #expect(response.environment == "Sandbox")
        #expect(response.shape == .appReceipt)
        #expect(response.bundleID == "com.revenuecat.sampleapp")
        #expect(!response.inApp.isEmpty)
        // The raw receipt is exactly Apple's bytes and parses to the same object.
        let raw = try #require(response.receiptJSON)
        let reparsed = try JSONSerialization.jsonObject(with: Data(raw)) as? [String: Any]
        let original = try SharedTestData.json(at: url)["receipt"] as? [String: Any]
        #expect(reparsed?["bundle_id"] as? String == original?["bundle_id"] as? String)
        #expect((reparsed?["in_app"] as? [Any])?.count == (original?["in_app"] as? [Any])?.count)
        #expect(response.body == body)
    }

    @Test func keepsUnknownKeysAndTheExactReceiptBytes() throws {
        let text =
            #"{"status":0,"environment":"Production","receipt":{ "bundle_id" : "a.b", "in_app":[{"product_id":"p","expires_date_ms":"1700000000000"}] },"latest_receipt_info":[{"product_id":"p","expires_date_ms":"1800000000000","is_trial_period":"true"}],"pending_renewal_info":[{"auto_renew_status":"1"}],"latest_receipt":"QUJD","future_key":{"n":1.5e3,"s":"\u00e9\ud83d\ude00"}}"#
        let response = try VerifyReceiptResponse(body: Array(text.utf8))
        #expect(
            response.receiptJSON
                == Array(
                    #"{ "bundle_id" : "a.b", "in_app":[{"product_id":"p","expires_date_ms":"1700000000000"}] }"#.utf8))
        #expect(response.latestReceiptInfo.first?.isTrialPeriod == true)
        #expect(response.newestExpiry == ReceiptDate(clampingMillisecondsSince1970: 1_800_000_000_000))
        #expect(response.pendingRenewalInfo.first?["auto_renew_status"] == .string("1"))
        #expect(response.latestReceipt == "QUJD")
        #expect(response.unknownMembers.map(\.key) == ["future_key"])
        let future = try #require(response.unknownMembers.first?.value.objectValue)
        #expect(future["n"] == .number("1.5e3"))
        #expect(future["s"] == .string("é😀"))
    }

    @Test func decodesTheIOS6Shape() throws {
        let text =
            #"{"receipt":{"bid":"com.example","product_id":"p","purchase_date_ms":"1700000000000","expires_date":"1710000000000"},"latest_receipt_info":{"bid":"com.example","expires_date":"1720000000000"},"latest_receipt":"QUJD","status":21006}"#
        let response = try VerifyReceiptResponse(body: Array(text.utf8))
        #expect(response.shape == .ios6)
        #expect(response.status == 21006)
        #expect(response.environment == nil)
        #expect(response.bundleID == "com.example")
        #expect(response.inApp.first?.purchaseDate == ReceiptDate(clampingMillisecondsSince1970: 1_700_000_000_000))
        #expect(response.newestExpiry == ReceiptDate(clampingMillisecondsSince1970: 1_720_000_000_000))
    }

    /// Found by fuzz-apple-response: a date Apple's answer could carry that is no instant used to trap when it
    /// was compared or printed. It is now simply not a date.
    @Test func aDateOutsideTheCalendarIsNoDate() throws {
        let text =
            #"{"status":0,"receipt":{"bundle_id":"b","in_app":[{"transaction_id":"1","expires_date_ms":"-9223372036854775808"}]},"latest_receipt_info":[{"expires_date_ms":"9223372036854775807","purchase_date_ms":"-9223372036854775808"}]}"#
        let response = try VerifyReceiptResponse(body: Array(text.utf8))
        #expect(response.newestExpiry == nil)
        #expect(response.latestReceiptInfo.first?.purchaseDate == nil)
    }

    @Test func readsIsRetryable() throws {
        let response = try VerifyReceiptResponse(body: Array(#"{"status":21150,"is-retryable":true}"#.utf8))
        #expect(response.isRetryable == true)
    }

    @Test(arguments: [
        "", " ", "null", "[]", "\"x\"", "{", "{}", #"{"status":null}"#, #"{"status":"0"}"#, #"{"status":true}"#,
        #"{"status":1e400}"#, #"{"status":99999999999999999999}"#, #"{"status":0,"receipt":"x"}"#,
        #"{"status":0,"latest_receipt_info":[1]}"#, #"{"status":0,"pending_renewal_info":{}}"#,
        #"{"status":0,"latest_receipt":5}"#, #"{"status":0,"is-retryable":"maybe"}"#, #"{"status":0,"x":"\ud800"#,
        "{\"status\":0,\"x\":\"\u{01}\"}", #"{"status":0,}"#, #"{"status":01}"#,
        #"{"status":0}{"status":0}"#, "\u{FEFF}{\"status\":0}", #"{"status":-}"#,
        #"{"status":0,"receipt":{"in_app":[1]}}"#, #"{"status":0,"status":21003}"#, #"{"status":0e0}"#,
        #"{"status":0,"receipt":{"bundle_id":"a","in_app":[]},"receipt":{"bundle_id":"b","in_app":[]}}"#,
        #"{"status":0,"latest_receipt_info":[],"latest_receipt_info":[{"transaction_id":"1"}]}"#,
        #"{"status":0,"x":"\ud800\u0041"}"#,
    ])
    func hostileBodiesAreMalformedResponses(_ text: String) {
        let error = #expect(throws: RemoteError.self) { try VerifyReceiptResponse(body: Array(text.utf8)) }
        #expect(error?.code == .malformedResponse)
    }

    @Test func deepNestingIsRefusedWithoutCrashing() {
        let deep =
            #"{"status":0,"x":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        let error = #expect(throws: RemoteError.self) { try VerifyReceiptResponse(body: Array(deep.utf8)) }
        #expect(error?.code == .malformedResponse)
    }

    @Test func randomBytesNeverCrash() {
        var generator = SplitMix64(seed: 0x5EED_0005)
        for _ in 0..<500 {
            let count = Int.random(in: 0..<64, using: &generator)
            let alphabet = Array(#"{}[]":,0123456789-.eE tfnrlusa\"#.utf8)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &generator) ?? 0 }
            if let response = try? VerifyReceiptResponse(body: [UInt8](#"{"status":"#.utf8) + bytes) {
                #expect(response.status >= Int.min)
            }
        }
    }
}
