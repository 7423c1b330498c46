import AppleStandIn
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptForge
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

/// What the verifyReceipt routes answer for a receipt whose environment is unknown, and when they send
/// `X-Receipt-Reason` (issue 10, class 7).
@Suite("verifyReceipt answers: unknown environment, reason header", .timeLimit(.minutes(2)))
struct VerifyReceiptAnswerTests {
    typealias Support = ServerTestSupport

    /// `valid-sha256` minted again without its receipt type (attribute 0): genuine under the test PKI, but
    /// of no known environment.
    static func receiptWithoutType() throws -> [UInt8] {
        let file = Support.fixturesDirectory.appendingPathComponent("descriptions/valid-sha256.json")
        var request = try MintRequest(json: Data(contentsOf: file))
        var receipt = try #require(request.receipt)
        receipt.receiptType = nil
        request.receipt = receipt
        return try request.mint(pki: TestPKI(directory: SharedTestData.packageRoot.appendingPathComponent("certs")))
    }

    static func post(_ service: ReceiptService, _ path: String, _ body: ByteBuffer) async throws -> TestResponse {
        try await service.makeApplication().test(.router) { client in
            try await client.execute(uri: path, method: .post, body: body)
        }
    }

    @Test(
        "a valid receipt without a receipt type is 21003 on both endpoints, never labelled Production",
        arguments: [false, true])
    func unknownEnvironmentIsNotAuthenticated(acceptsAnyEnvironment: Bool) async throws {
        let receipt = try Self.receiptWithoutType()
        let service = try Support.service(Support.configuration(acceptsAnyEnvironment: acceptsAnyEnvironment))
        for path in ["/verifyReceipt", "/sandbox/verifyReceipt"] {
            let response = try await Self.post(service, path, Support.appleRequest(receipt))
            #expect(try Support.status(response.body) == 21003, "\(path)")
            #expect(try Support.object(response.body)["environment"] == nil)
            #expect(response.headers[.init("X-Receipt-Reason")!] == "policy.environment_rejected")
        }
        // /v1/verify reports the verifier's verdict as it is: valid, with no environment to name.
        let v1 = try await Self.post(
            service, "/v1/verify", ByteBuffer(string: "{\"receipt_data\":\"\(Base64.encode(receipt))\"}"))
        let body = try Support.object(v1.body)
        #expect(body["verdict"] as? String == "valid")
        #expect(body["environment"] == nil)
    }

    /// A subscription refresh that Apple refuses (21004) leaves the local `valid`, status 0, with the
    /// remote reason in the decision: status 0 carries no `X-Receipt-Reason`.
    @Test("X-Receipt-Reason is sent only when the status is not 0")
    func noReasonHeaderOnStatusZero() async throws {
        let standIn = AppleStandIn(configuration: .init(sharedSecret: "apple-secret"))
        try await standIn.withRunning { addresses in
            let decider = try FallbackVerifier.apple(
                verifier: Support.verifier(), productionURL: addresses.productionURL,
                sandboxURL: addresses.sandboxURL, deadline: .seconds(60), logger: Support.quietLogger)
            var configuration = Support.configuration()
            // 2026-01-15: after valid-sha256's newest subscription expiry (2025-06-20), so a refresh is asked.
            configuration.clock = { ReceiptDate(clampingMillisecondsSince1970: 1_768_435_200_000) }
            let service = try Support.service(configuration, decider: decider)
            let receipt = try Support.fixture("valid-sha256.receipt")
            let response = try await Self.post(
                service, "/sandbox/verifyReceipt", Support.appleRequest(receipt, password: "other-secret"))
            #expect(try Support.status(response.body) == 0)
            #expect(response.headers[.init("X-Receipt-Decided-By")!] == "local")
            #expect(standIn.callCount(.sandbox) == 1)
            #expect(response.headers[.init("X-Receipt-Reason")!] == nil)

            let tampered = try await Self.post(
                service, "/sandbox/verifyReceipt", Support.appleRequest(try Support.fixture("tampered-payload.receipt"))
            )
            #expect(try Support.status(tampered.body) == 21003)
            #expect(tampered.headers[.init("X-Receipt-Reason")!] == "signature.mismatch")
        }
    }
}
