import AppleStandIn
import Foundation
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import Testing

/// Neither the shared secret nor the receipt data appear in any log line, at `.trace`, on any path:
/// success, hop, retries, failures, the breaker, and the stand-in's own logs.
@Suite(.timeLimit(.minutes(1)))
struct SecretLoggingTests {
    static let secret = "SUPER-secret-0123456789abcdef"

    @Test func noSecretOrReceiptInLogsAtTrace() async throws {
        let capture = LogCapture()
        let receipt = try RemoteTestData.fixture("ios6-valid.b64")
        let receiptData = String(decoding: receipt, as: UTF8.self)
        let appReceipt = try RemoteTestData.fixture("valid-sha256.receipt")
        let standIn = try RemoteTestData.standIn(sharedSecret: Self.secret, logger: capture.logger("standin"))
        standIn.script(.production, [.status(21005), .httpStatus(500), .dropConnection, .body("{bad")])
        let now = try #require(ReceiptDate(rfc3339: "2026-01-15T00:00:00Z"))
        try await standIn.withRunning { addresses in
            let clock = ManualClock()
            let client = try VerifyReceiptClient(
                configuration: RemoteTestData.configuration(addresses, maximumAttempts: 6, failureThreshold: 4),
                clock: clock, random: { 0.5 }, logger: capture.logger("client"))
            let fallback = FallbackVerifier(
                verifier: try RemoteTestData.verifier(), remote: client, logger: capture.logger("fallback"))
            let request = FallbackRequest(password: Self.secret, subscriptionStateAt: now)
            let refused = await fallback.verify(receipt, request: request)  // four failed attempts open the circuit
            #expect(refused.verdict.reason?.code == Reason.Code(RemoteError.Code.circuitOpen))
            clock.advance(by: .seconds(60))
            let result = await fallback.verify(receipt, request: request)  // probe, 21007 hop, success
            #expect(result.decidedBy == .remote)
            _ = await fallback.verify(appReceipt, request: request)  // subscription refresh
            _ = await fallback.verify(
                appReceipt, request: FallbackRequest(password: "wrong-\(Self.secret)", subscriptionStateAt: now))
        }
        let lines = capture.all
        #expect(lines.count > 5, "the paths above log something")
        let forbidden = [
            Self.secret, receiptData, String(receiptData.prefix(40)), Base64.encode(appReceipt).prefix(40).description,
        ]
        for line in lines {
            for secret in forbidden {
                #expect(!line.contains(secret), "leaked in: \(line.prefix(200))")
            }
        }
    }

    @Test func requestDescriptionsRedactTheSecretAndTheReceipt() {
        let request = VerifyReceiptRequest(receiptData: "QUJDREVGR0hJSktM", password: Self.secret)
        for text in [request.description, String(reflecting: request), "\(request)", dumped(request)] {
            #expect(!text.contains(Self.secret))
            #expect(!text.contains("QUJDREVGR0hJSktM"))
        }
        let fallbackRequest = FallbackRequest(password: Self.secret)
        for text in [fallbackRequest.description, String(reflecting: fallbackRequest), dumped(fallbackRequest)] {
            #expect(!text.contains(Self.secret))
        }
    }

    @Test func receiptBytesAreSentAsBase64InEveryForm() throws {
        let der = try RemoteTestData.fixture("valid-sha256.receipt")
        let base64 = Base64.encode(der)
        let urlSafe = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        for form in [
            der, Array(base64.utf8), Array("  \"\(base64)\"\n".utf8),
            Array("data:application/pkcs7-mime;base64,\(base64)".utf8), [0xEF, 0xBB, 0xBF] + Array(base64.utf8),
            Array(urlSafe.trimmingCharacters(in: ["="]).utf8),
        ] {
            #expect(try VerifyReceiptRequest(receiptBytes: form).receiptData == base64)
        }
    }

    /// AsyncHTTPClient logs each HTTP part it reads at `trace`, a body part as a hex dump of its first and
    /// last 32 bytes. The client hands it a logger that never goes below `debug`, so none of Apple's
    /// answer (the `receipt` object, `latest_receipt`) reaches a log at any level.
    @Test func applesAnswerIsNotLoggedByTheHTTPClientAtTrace() async throws {
        let capture = LogCapture()
        let appReceipt = try RemoteTestData.fixture("valid-sha256.receipt")
        let ios6 = try RemoteTestData.fixture("ios6-valid.b64")
        let standIn = try RemoteTestData.standIn(sharedSecret: Self.secret)
        let now = try #require(ReceiptDate(rfc3339: "2026-01-15T00:00:00Z"))
        try await standIn.withRunning { addresses in
            let client = try RemoteTestData.client(
                RemoteTestData.configuration(addresses), logger: capture.logger("client"))
            let fallback = FallbackVerifier(verifier: try RemoteTestData.verifier(), remote: client)
            // A refresh: Apple's answer ends with `"latest_receipt":"<the receipt's base64>"}`.
            let refreshed = await fallback.verify(
                appReceipt, request: FallbackRequest(password: Self.secret, subscriptionStateAt: now))
            #expect(refreshed.decidedBy == .remote)
            // iOS 6: Apple's answer starts with `{"receipt":{"bid":…`.
            let ios6Result = await fallback.verify(ios6)
            #expect(ios6Result.decidedBy == .remote)
        }
        func hex(_ text: some StringProtocol) -> String {
            text.utf8.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined()
        }
        let forbidden = [
            hex(Base64.encode(appReceipt).suffix(12)), hex(#""receipt":{"#), hex(Self.secret),
            hex(#""bid":"org.example"#),
        ]
        let lines = capture.all
        #expect(!lines.isEmpty)
        for line in lines {
            for pattern in forbidden {
                #expect(!line.contains(pattern), "leaked in: \(line.prefix(300))")
            }
        }
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
