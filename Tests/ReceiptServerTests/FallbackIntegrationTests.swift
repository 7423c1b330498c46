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

/// The server with the remote fallback on, asking the loopback AppleStandIn instead of Apple.
@Suite("remote fallback", .timeLimit(.minutes(2)))
struct FallbackIntegrationTests {
    typealias Support = ServerTestSupport

    /// A service whose fallback asks the stand-in at `addresses`.
    static func service(_ addresses: StandInAddresses, deadline: Duration = .seconds(60)) throws -> ReceiptService {
        let decider = try FallbackVerifier.apple(
            verifier: Support.verifier(), productionURL: addresses.productionURL, sandboxURL: addresses.sandboxURL,
            deadline: deadline, logger: Support.quietLogger)
        return try Support.service(decider: decider)
    }

    static func post(_ service: ReceiptService, _ path: String, _ body: ByteBuffer) async throws -> TestResponse {
        try await service.makeApplication().test(.router) { client in
            try await client.execute(uri: path, method: .post, body: body)
        }
    }

    static func ios6Request() throws -> ByteBuffer {
        ByteBuffer(
            string: "{\"receipt-data\":\"\(String(decoding: try Support.fixture("ios6-valid.b64"), as: UTF8.self))\"}")
    }

    @Test("an iOS 6 receipt (inconclusive locally) is decided by Apple, whose body is passed through")
    func inconclusiveGoesToApple() async throws {
        let standIn = AppleStandIn(configuration: .init(now: { Support.fixedNow }))
        try await standIn.withRunning { addresses in
            let response = try await Self.post(
                try Self.service(addresses), "/sandbox/verifyReceipt", try Self.ios6Request())
            #expect(response.status == .ok)
            #expect(try Support.status(response.body) == 0)
            #expect(response.headers[.init("X-Receipt-Decided-By")!] == "remote")
            #expect(standIn.callCount(.sandbox) == 1)
            #expect(standIn.callCount(.production) == 0)
        }
    }

    @Test(
        "a locally valid or invalid receipt never reaches Apple",
        arguments: [("valid-sha256.receipt", 0), ("tampered-payload.receipt", 21003)])
    func localVerdictsAreFinal(name: String, status: Int) async throws {
        let standIn = AppleStandIn()
        try await standIn.withRunning { addresses in
            let response = try await Self.post(
                try Self.service(addresses), "/sandbox/verifyReceipt", Support.appleRequest(try Support.fixture(name)))
            #expect(try Support.status(response.body) == status)
            #expect(response.headers[.init("X-Receipt-Decided-By")!] == "local")
            #expect(standIn.requests().isEmpty)
        }
    }

    @Test("Apple unreachable for an inconclusive receipt: 21005 (try again), decided locally, counted in metrics")
    func appleUnreachable() async throws {
        let standIn = AppleStandIn()
        standIn.setDefault(.sandbox, .httpStatus(500))
        standIn.setDefault(.production, .httpStatus(500))
        try await standIn.withRunning { addresses in
            let service = try Self.service(addresses, deadline: .seconds(2))
            try await service.makeApplication().test(.router) { client in
                let response = try await client.execute(
                    uri: "/sandbox/verifyReceipt", method: .post, body: try Self.ios6Request())
                #expect(try Support.status(response.body) == 21005)
                #expect(response.headers[.init("X-Receipt-Decided-By")!] == "local")
                let metrics = try await client.execute(uri: "/metrics", method: .get)
                let text = String(decoding: Support.bytes(metrics.body), as: UTF8.self)
                #expect(text.contains("receipt_server_remote_calls_total{status=\"remote."))
            }
            #expect(standIn.callCount(.sandbox) >= 1)
        }
    }

    @Test("/v1/verify with allow_remote false stays local")
    func allowRemoteFalse() async throws {
        let standIn = AppleStandIn()
        try await standIn.withRunning { addresses in
            let text = String(decoding: try Support.fixture("ios6-valid.b64"), as: UTF8.self)
            let app = try Self.service(addresses).makeApplication()
            try await app.test(.router) { client in
                let response = try await client.execute(
                    uri: "/v1/verify", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: "{\"receipt_data\":\"\(text)\",\"allow_remote\":false}"))
                let body = try Support.object(response.body)
                #expect(body["verdict"] as? String == "inconclusive")
                #expect(body["decided_by"] as? String == "local")
                #expect(body["kind"] as? String == "ios6_transaction_receipt")
            }
            #expect(standIn.requests().isEmpty)
        }
    }

    @Test(
        "with a shared secret, a subscription receipt expired before now is refreshed by Apple",
        .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func subscriptionRefresh() async throws {
        let renewed = try #require(ReceiptDate(rfc3339: "2024-01-01T00:00:00Z"))
        let standIn = AppleStandIn(configuration: .init(now: { Support.fixedNow }, renewedUntil: renewed))
        let bytes = try SharedTestData.receiptBytes("rc-sampleapp-sandbox-2020")
        try await standIn.withRunning { addresses in
            let response = try await Self.post(
                try Self.service(addresses), "/sandbox/verifyReceipt", Support.appleRequest(bytes, password: "secret"))
            #expect(try Support.status(response.body) == 0)
            #expect(response.headers[.init("X-Receipt-Decided-By")!] == "remote")
            let latest = try #require(try Support.object(response.body)["latest_receipt_info"] as? [[String: Any]])
            let newest = latest.compactMap { ($0["expires_date_ms"] as? String).flatMap { Int64($0) } }.max()
            #expect(newest == renewed.millisecondsSince1970)
            // Without a password the receipt alone answers, locally.
            let local = try await Self.post(
                try Self.service(addresses), "/sandbox/verifyReceipt", Support.appleRequest(bytes))
            #expect(local.headers[.init("X-Receipt-Decided-By")!] == "local")
        }
    }
}
