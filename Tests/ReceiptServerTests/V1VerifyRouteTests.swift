import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptModel
import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

/// `/v1/verify`, `/health` and `/metrics` driven in-process.
@Suite("v1 and operations routes", .timeLimit(.minutes(2)))
struct V1VerifyRouteTests {
    typealias Support = ServerTestSupport

    static func post(
        _ body: ByteBuffer, path: String = "/v1/verify", contentType: String? = "application/json",
        service: ReceiptService? = nil
    ) async throws -> TestResponse {
        let app = try (service ?? Support.service()).makeApplication()
        var fields: HTTPFields = [:]
        if let contentType { fields[.contentType] = contentType }
        let headers = fields
        return try await app.test(.router) { client in
            try await client.execute(uri: path, method: .post, headers: headers, body: body)
        }
    }

    static func json(_ receipt: [UInt8], _ extra: String = "") -> ByteBuffer {
        ByteBuffer(string: "{\"receipt_data\":\"\(Base64.encode(receipt))\"\(extra)}")
    }

    @Test("a valid fixture: verdict, status, local decision, validation time, chain and the Apple-shaped receipt")
    func validReceipt() async throws {
        let receipt = try Support.fixture("valid-sha256.receipt")
        let response = try await Self.post(Self.json(receipt))
        #expect(response.status == .ok)
        let body = try Support.object(response.body)
        #expect(body["verdict"] as? String == "valid")
        #expect(body["status"] as? Int == 0)
        #expect(body["decided_by"] as? String == "local")
        #expect(body["environment"] as? String == "Sandbox")
        #expect(body["validation_time"] as? String == "receiptCreation")
        #expect(body["validated_at"] as? String != nil)
        #expect((body["reasons"] as? [Any])?.isEmpty == true)
        #expect((body["chain"] as? [String])?.count == 3)
        #expect(body["kind"] as? String == "app_receipt")
        let payload = try AppReceipt(berEncoded: receipt).payload
        #expect(
            try Support.receiptObjectBytes(Support.bytes(response.body))
                == AppleReceiptJSON.render(payload, requestDate: Support.fixedNow))
    }

    @Test("raw bytes as application/octet-stream verify the same, options from the query")
    func rawBytes() async throws {
        let receipt = try Support.fixture("valid-ber-indefinite.receipt")
        let response = try await Self.post(
            ByteBuffer(bytes: receipt), path: "/v1/verify?validation_time=creation",
            contentType: "application/octet-stream")
        #expect(response.status == .ok)
        #expect(try Support.object(response.body)["verdict"] as? String == "valid")
    }

    @Test(
        "fixtures: the verdict and first reason code are the catalogue's",
        arguments: [
            "tampered-payload", "expired-leaf", "leaf-without-marker", "no-signer", "malformed-in-app-record",
            "valid-sha1",
        ])
    func fixtureVerdicts(name: String) async throws {
        let expected = try SharedTestData.json(
            at: Support.fixturesDirectory.appendingPathComponent("\(name).expected.json"))
        let response = try await Self.post(
            ByteBuffer(bytes: try Support.fixture("\(name).receipt")), contentType: "application/octet-stream")
        #expect(response.status == .ok)
        let body = try Support.object(response.body)
        #expect(body["verdict"] as? String == expected["verdict"] as? String)
        let reasons = try #require(body["reasons"] as? [[String: Any]])
        #expect(reasons.first?["code"] as? String == expected["reason"] as? String)
    }

    @Test("validation_time now (stricter than the server's creation) validates at the server's clock")
    func validationTimeNow() async throws {
        let receipt = try Support.fixture("valid-sha256.receipt")
        // The server's clock (2023-11-14) is before the test leaf's notBefore (2024-01-01).
        let response = try await Self.post(Self.json(receipt, ",\"validation_time\":\"now\""))
        let body = try Support.object(response.body)
        #expect(body["verdict"] as? String == "invalid")
        #expect(body["validation_time"] as? String == "now")
        #expect((body["reasons"] as? [[String: Any]])?.first?["code"] as? String == "chain.not_yet_valid")
    }

    @Test(
        "refusals carry HTTP statuses and stable codes",
        arguments: [
            ("{bad json", "application/json", 400, "server.invalid_json"),
            ("{\"other\":1}", "application/json", 400, "server.missing_receipt_data"),
            ("{\"receipt_data\":\"@@@@\"}", "application/json", 400, "server.invalid_base64"),
            (
                "{\"receipt_data\":\"QUJD\",\"validation_time\":\"yesterday\"}", "application/json", 400,
                "server.invalid_option"
            ),
            ("receipt", "text/plain", 415, "server.unsupported_media_type"),
        ])
    func refusals(body: String, contentType: String, status: Int, code: String) async throws {
        let response = try await Self.post(ByteBuffer(string: body), contentType: contentType)
        #expect(response.status.code == status)
        let error = try #require(try Support.object(response.body)["error"] as? [String: Any])
        #expect(error["code"] as? String == code)
    }

    @Test("a body over the limit is 413 on both APIs (declared length checked before reading)")
    func bodyTooLarge() async throws {
        let service = try Support.service(Support.configuration(maximumBodySize: 4096))
        let big = ByteBuffer(repeating: UInt8(ascii: "A"), count: 5000)
        let v1 = try await Self.post(big, service: service)
        #expect(v1.status.code == 413)
        #expect((try Support.object(v1.body)["error"] as? [String: Any])?["code"] as? String == "server.body_too_large")
        let apple = try await Self.post(big, path: "/verifyReceipt", service: service)
        #expect(apple.status.code == 413)
        #expect(try Support.status(apple.body) == 21000)
    }

    @Test("health answers ok")
    func health() async throws {
        let app = try Support.service().makeApplication()
        try await app.test(.router) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
            #expect(try Support.object(response.body)["status"] as? String == "ok")
        }
    }

    @Test("metrics count requests, verdicts, rejections, cache hits and misses, and the latency histogram")
    func metrics() async throws {
        let app = try Support.service().makeApplication()
        let receipt = try Support.fixture("valid-sha256.receipt")
        try await app.test(.router) { client in
            for _ in 0..<3 {
                _ = try await client.execute(
                    uri: "/sandbox/verifyReceipt", method: .post, body: Support.appleRequest(receipt))
            }
            _ = try await client.execute(uri: "/verifyReceipt", method: .post, body: ByteBuffer(string: "nope"))
            let response = try await client.execute(uri: "/metrics", method: .get)
            #expect(response.status == .ok)
            let text = String(decoding: Support.bytes(response.body), as: UTF8.self)
            let lines = Set(text.split(separator: "\n").map(String.init))
            #expect(lines.contains(#"receipt_server_requests_total{endpoint="/sandbox/verifyReceipt",code="200"} 3"#))
            #expect(
                lines.contains(
                    #"receipt_server_verify_receipt_status_total{endpoint="/verifyReceipt",status="21000"} 1"#))
            #expect(lines.contains(#"receipt_server_verdicts_total{outcome="valid",decided_by="local"} 3"#))
            #expect(lines.contains(#"receipt_server_rejections_total{reason="server.invalid_json"} 1"#))
            #expect(lines.contains("receipt_server_chain_cache_misses_total 1"))
            #expect(lines.contains("receipt_server_chain_cache_hits_total 2"))
            #expect(lines.contains(#"receipt_server_request_duration_seconds_bucket{le="+Inf"} 4"#))
            #expect(lines.contains("receipt_server_request_duration_seconds_count 4"))
            #expect(lines.contains("# TYPE receipt_server_request_duration_seconds histogram"))
        }
    }
}
