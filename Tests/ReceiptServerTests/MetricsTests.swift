import Hummingbird
import HummingbirdTesting
import ReceiptModel
import ReceiptServer
import ReceiptVerification
import Testing

/// What each kind of request adds to `/metrics`: which series, under which labels. Values are read as
/// numbers, so `3` and `3.0` are the same count.
@Suite("metrics", .timeLimit(.minutes(1)))
struct MetricsTests {
    typealias Support = ServerTestSupport

    /// The exposition's samples by series (`name{labels}`); comments are skipped.
    static func samples(_ client: some TestClientProtocol) async throws -> [String: Double] {
        let response = try await client.execute(uri: "/metrics", method: .get)
        #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
        var samples: [String: Double] = [:]
        for line in String(decoding: Support.bytes(response.body), as: UTF8.self).split(separator: "\n")
        where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
                Issue.record("not a sample: \(line)")
                continue
            }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    static func post(_ client: some TestClientProtocol, _ path: String, _ body: String) async throws {
        _ = try await client.execute(
            uri: path, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
    }

    @Test("requests, statuses, verdicts and refusals land in their series")
    func seriesPerRequest() async throws {
        let service = try Support.service(Support.configuration(sharedSecret: "s3cret"))
        let valid = Base64.encode(try Support.fixture("valid-sha256.receipt"))
        let tampered = Base64.encode(try Support.fixture("tampered-payload.receipt"))
        try await service.makeApplication().test(.router) { client in
            try await Self.post(client, "/verifyReceipt", "nope")
            try await Self.post(client, "/verifyReceipt", #"{"receipt-data":"QUJD","password":"wrong"}"#)
            try await Self.post(client, "/sandbox/verifyReceipt", #"{"receipt-data":"\#(tampered)"}"#)
            try await Self.post(client, "/v1/verify", #"{"receipt_data":"QUJD","password":"wrong"}"#)
            try await Self.post(client, "/v1/verify", #"{"receipt_data":"\#(valid)"}"#)
            try await Self.post(client, "/v1/verify", #"{"receipt_data":"@@@@"}"#)
            _ = try await client.execute(uri: "/health", method: .get)
            let samples = try await Self.samples(client)

            #expect(samples[#"receipt_server_requests_total{endpoint="/verifyReceipt",code="200"}"#] == 2)
            #expect(samples[#"receipt_server_requests_total{endpoint="/sandbox/verifyReceipt",code="200"}"#] == 1)
            #expect(samples[#"receipt_server_requests_total{endpoint="/v1/verify",code="403"}"#] == 1)
            #expect(samples[#"receipt_server_requests_total{endpoint="/v1/verify",code="200"}"#] == 1)
            #expect(samples[#"receipt_server_requests_total{endpoint="/v1/verify",code="400"}"#] == 1)
            // The operations routes are not counted.
            #expect(!samples.keys.contains { $0.contains("/health") || $0.contains("/metrics") })

            // A verifyReceipt refusal answers a status; so does a wrong password (21004), which is an answer
            // in Apple's contract, not a refusal. /v1/verify's refusals answer none.
            #expect(
                samples[#"receipt_server_verify_receipt_status_total{endpoint="/verifyReceipt",status="21000"}"#] == 1)
            #expect(
                samples[#"receipt_server_verify_receipt_status_total{endpoint="/verifyReceipt",status="21004"}"#] == 1)
            #expect(
                samples[
                    #"receipt_server_verify_receipt_status_total{endpoint="/sandbox/verifyReceipt",status="21003"}"#]
                    == 1)
            #expect(samples[#"receipt_server_verify_receipt_status_total{endpoint="/v1/verify",status="0"}"#] == 1)
            #expect(samples.keys.filter { $0.hasPrefix("receipt_server_verify_receipt_status_total") }.count == 4)

            #expect(samples[#"receipt_server_rejections_total{reason="server.invalid_json"}"#] == 1)
            #expect(samples[#"receipt_server_rejections_total{reason="server.shared_secret_mismatch"}"#] == 1)
            #expect(samples[#"receipt_server_rejections_total{reason="server.invalid_base64"}"#] == 1)

            // Text that is not base64 on /v1/verify is refused, not counted as a verdict.
            #expect(samples[#"receipt_server_verdicts_total{outcome="valid",decided_by="local"}"#] == 1)
            #expect(samples[#"receipt_server_verdicts_total{outcome="invalid",decided_by="local"}"#] == 1)
            #expect(samples.keys.filter { $0.hasPrefix("receipt_server_verdicts_total") }.count == 2)
            #expect(!samples.keys.contains { $0.hasPrefix("receipt_server_remote_calls_total") })

            #expect(samples["receipt_server_request_duration_seconds_count"] == 6)
            #expect(samples[#"receipt_server_request_duration_seconds_bucket{le="+Inf"}"#] == 6)
            #expect(samples[#"receipt_server_request_duration_seconds_bucket{le="10.0"}"#] == 6)
            #expect((samples["receipt_server_chain_cache_misses_total"] ?? 0) >= 1)
            #expect((samples["receipt_server_chain_cache_entries"] ?? 0) >= 1)
            #expect(samples["receipt_server_in_flight"] == 0)
        }
    }

    @Test("an overloaded server counts its refusals: HTTP 503, status 21005, server.overloaded")
    func overload() async throws {
        let service = try Support.service(Support.configuration(maximumInFlight: 0))
        try await service.makeApplication().test(.router) { client in
            try await Self.post(client, "/verifyReceipt", #"{"receipt-data":"QUJD"}"#)
            try await Self.post(client, "/v1/verify", #"{"receipt_data":"QUJD"}"#)
            let samples = try await Self.samples(client)
            #expect(samples[#"receipt_server_requests_total{endpoint="/verifyReceipt",code="503"}"#] == 1)
            #expect(samples[#"receipt_server_requests_total{endpoint="/v1/verify",code="503"}"#] == 1)
            #expect(
                samples[#"receipt_server_verify_receipt_status_total{endpoint="/verifyReceipt",status="21005"}"#] == 1)
            #expect(samples[#"receipt_server_rejections_total{reason="server.overloaded"}"#] == 2)
            #expect(!samples.keys.contains { $0.hasPrefix("receipt_server_verdicts_total") })
        }
    }

    @Test("two servers in one process count separately")
    func serversDoNotShareCounters() async throws {
        let first = try Support.service()
        let second = try Support.service()
        try await first.makeApplication().test(.router) { client in
            try await Self.post(client, "/verifyReceipt", "nope")
        }
        try await second.makeApplication().test(.router) { client in
            let samples = try await Self.samples(client)
            #expect(samples[#"receipt_server_requests_total{endpoint="/verifyReceipt",code="200"}"#] == nil)
            #expect(samples["receipt_server_request_duration_seconds_count"] == 0)
        }
    }
}
