import AppleStandIn
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

/// The operator's configuration wins over a `/v1/verify` client (issue 10, class 6): the shared secret is
/// checked as on `/verifyReceipt`, and a client option may only narrow what the server allows.
@Suite("the operator's configuration wins", .timeLimit(.minutes(2)))
struct OperatorPolicyTests {
    typealias Support = ServerTestSupport

    /// 2036-01-01T00:00:00Z: after the test leaf's notAfter (2034-12-31), so `valid-sha256` (created
    /// 2025-06-15) has an expired chain "now" and a valid one at its creation date.
    static let afterTheLeafExpired = ReceiptDate(clampingMillisecondsSince1970: 2_082_758_400_000)

    static func configuration(
        _ policy: ValidationTime, sharedSecret: String? = nil
    ) -> ReceiptServerConfiguration {
        var configuration = Support.configuration(sharedSecret: sharedSecret, validationTime: policy)
        configuration.clock = { afterTheLeafExpired }
        return configuration
    }

    static func post(
        _ service: ReceiptService, _ body: ByteBuffer, path: String = "/v1/verify",
        contentType: String = "application/json"
    ) async throws -> TestResponse {
        try await service.makeApplication().test(.router) { client in
            try await client.execute(uri: path, method: .post, headers: [.contentType: contentType], body: body)
        }
    }

    static func v1(_ receipt: [UInt8], _ members: String = "") -> ByteBuffer {
        ByteBuffer(string: "{\"receipt_data\":\"\(Base64.encode(receipt))\"\(members)}")
    }

    static func errorCode(_ response: TestResponse) throws -> String? {
        (try Support.object(response.body)["error"] as? [String: Any])?["code"] as? String
    }

    static func verdict(_ response: TestResponse) throws -> (verdict: String?, reason: String?) {
        let body = try Support.object(response.body)
        let reasons = body["reasons"] as? [[String: Any]]
        return (body["verdict"] as? String, reasons?.first?["code"] as? String)
    }

    @Test("--at now: the expired chain is invalid, with or without validation_time now")
    func atNowAnExpiredChainIsInvalid() async throws {
        let service = try Support.service(Self.configuration(.now))
        let receipt = try Support.fixture("valid-sha256.receipt")
        for members in ["", ",\"validation_time\":\"now\""] {
            let response = try await Self.post(service, Self.v1(receipt, members))
            #expect(response.status == .ok)
            let (verdict, reason) = try Self.verdict(response)
            #expect(verdict == "invalid")
            #expect(reason == "chain.expired")
        }
    }

    /// `creation` or a past instant would validate the chain when it was still valid: a client turning an
    /// expired chain valid against the operator's `--at now`.
    @Test(
        "--at now: validation_time creation or a fixed instant is refused (JSON and query)",
        arguments: ["creation", "2025-06-15T09:30:00Z", "2034-06-01T00:00:00Z", "2040-01-01T00:00:00Z"])
    func atNowTheClientCannotChooseAnotherInstant(time: String) async throws {
        let service = try Support.service(Self.configuration(.now))
        let receipt = try Support.fixture("valid-sha256.receipt")
        let json = try await Self.post(service, Self.v1(receipt, ",\"validation_time\":\"\(time)\""))
        #expect(json.status == .badRequest)
        #expect(try Self.errorCode(json) == "server.invalid_option")
        let raw = try await Self.post(
            service, ByteBuffer(bytes: receipt), path: "/v1/verify?validation_time=\(time)",
            contentType: "application/octet-stream")
        #expect(raw.status == .badRequest)
        #expect(try Self.errorCode(raw) == "server.invalid_option")
    }

    @Test("--at creation: the client may ask for now, which is stricter")
    func atCreationTheClientMayAskForNow() async throws {
        let service = try Support.service(Self.configuration(.receiptCreation))
        let receipt = try Support.fixture("valid-sha256.receipt")
        for (members, expected) in [
            ("", "valid"), (",\"validation_time\":\"creation\"", "valid"), (",\"validation_time\":\"now\"", "invalid"),
        ] {
            let response = try await Self.post(service, Self.v1(receipt, members))
            #expect(response.status == .ok)
            #expect(try Self.verdict(response).verdict == expected, "\(members)")
        }
    }

    @Test("--at creation: a fixed instant is refused", arguments: ["2025-06-15T09:30:00Z", "2099-01-01T00:00:00Z"])
    func atCreationAFixedInstantIsRefused(time: String) async throws {
        let service = try Support.service(Self.configuration(.receiptCreation))
        let receipt = try Support.fixture("valid-sha256.receipt")
        let response = try await Self.post(service, Self.v1(receipt, ",\"validation_time\":\"\(time)\""))
        #expect(response.status == .badRequest)
        #expect(try Self.errorCode(response) == "server.invalid_option")
    }

    /// As on `/verifyReceipt`: a wrong password is refused before anything is verified or sent to Apple.
    @Test("a password other than the shared secret is refused with 403 and never forwarded to Apple")
    func aWrongPasswordIsRefusedAndNeverForwarded() async throws {
        let standIn = AppleStandIn(configuration: .init(now: { Support.fixedNow }))
        let ios6 = String(decoding: try Support.fixture("ios6-valid.b64"), as: UTF8.self)
        func body(_ password: String?) -> ByteBuffer {
            ByteBuffer(
                string: "{\"receipt_data\":\"\(ios6)\"" + (password.map { ",\"password\":\"\($0)\"" } ?? "") + "}")
        }
        try await standIn.withRunning { addresses in
            let decider = try FallbackVerifier.apple(
                verifier: Support.verifier(), productionURL: addresses.productionURL,
                sandboxURL: addresses.sandboxURL, deadline: .seconds(5), logger: Support.quietLogger)
            let service = try Support.service(Support.configuration(sharedSecret: "right-secret"), decider: decider)
            let wrong = try await Self.post(service, body("wrong-secret"))
            #expect(wrong.status == .forbidden)
            #expect(try Self.errorCode(wrong) == "server.shared_secret_mismatch")
            let apple = try await Self.post(
                service, ByteBuffer(string: "{\"receipt-data\":\"\(ios6)\",\"password\":\"wrong-secret\"}"),
                path: "/sandbox/verifyReceipt")
            #expect(try Support.status(apple.body) == 21004)
            #expect(standIn.requests().isEmpty)

            for password in ["right-secret", nil] {
                let response = try await Self.post(service, body(password))
                #expect(response.status == .ok)
                #expect(try Support.object(response.body)["decided_by"] as? String == "remote")
            }
            #expect(standIn.requests().allSatisfy { $0.password == "right-secret" })
        }
    }

    @Test("allow_remote true cannot turn on a fallback the server does not have")
    func allowRemoteOnlyNarrows() async throws {
        let ios6 = String(decoding: try Support.fixture("ios6-valid.b64"), as: UTF8.self)
        let response = try await Self.post(
            try Support.service(), ByteBuffer(string: "{\"receipt_data\":\"\(ios6)\",\"allow_remote\":true}"))
        let body = try Support.object(response.body)
        #expect(body["verdict"] as? String == "inconclusive")
        #expect(body["decided_by"] as? String == "local")
    }

    @Test func aFixedOperatorTimeAdmitsOnlyItself() throws {
        let instant = try #require(ReceiptDate(rfc3339: "2025-06-15T09:30:00Z"))
        let fixed = ValidationTime.fixed(instant)
        #expect(try V1Options().validationTime(policy: fixed) == fixed)
        #expect(try V1Options(validationTime: fixed).validationTime(policy: fixed) == fixed)
        for asked: ValidationTime in [
            .now, .receiptCreation,
            .fixed(ReceiptDate(clampingMillisecondsSince1970: instant.millisecondsSince1970 + 1)),
        ] {
            #expect(throws: ServerError.self) { try V1Options(validationTime: asked).validationTime(policy: fixed) }
        }
    }
}
