import Foundation
import Hummingbird
import ReceiptModel
import ReceiptServer
import ReceiptVerification
import Testing

/// What clients receive, byte for byte (status line, every header but `Date`, body), for each way the
/// routes refuse a request, over a real socket. `scripts/wire-snapshot` records answers to receipts;
/// this covers the refusals and the operations routes it does not send.
@Suite("refusals on the wire", .timeLimit(.minutes(2)))
struct RefusalWireTests {
    typealias Support = ServerTestSupport

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        /// The raw request: head and whatever part of the body is sent.
        let request: String
        /// The whole response without its `Date` line.
        let expected: String
        var testDescription: String { name }
    }

    static func post(_ path: String, _ body: String, contentType: String = "application/json") -> String {
        "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// A head that declares `length` bytes, followed by only `sent` of them.
    static func truncated(_ path: String, length: Int, sent: String) -> String {
        "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n\(sent)"
    }

    static func answer(_ status: String, _ headers: [String], _ body: String) -> String {
        "HTTP/1.1 \(status)\r\n" + headers.map { "\($0)\r\n" }.joined() + "\r\n" + body
    }

    /// A JSON response as Hummingbird writes it: `Content-Length` follows the headers the response was made
    /// with and precedes those added to it afterwards (`after`).
    static func json(_ status: String, _ body: String, with: [String] = [], after: [String] = []) -> String {
        answer(
            status,
            ["Content-Type: application/json"] + with + ["Content-Length: \(body.utf8.count)"] + after
                + ["Server: receipt-server"],
            body)
    }

    static func error(_ code: String, _ message: String) -> String {
        #"{"error":{"code":""# + code + #"","message":""# + message + #""}}"#
    }

    /// Sends `request` on a new connection and returns the response without its `Date` line.
    static func exchange(_ request: String, port: Int) async throws -> String {
        let connection = try RawConnection(port: port)
        let response = await onOwnThread {
            connection.send(request)
            return connection.receiveResponse()
        }
        guard let headEnd = response.range(of: "\r\n\r\n") else { return response }
        let head = response[..<headEnd.lowerBound].split(separator: "\r\n", omittingEmptySubsequences: false)
            .filter { !$0.lowercased().hasPrefix("date:") }
        return head.joined(separator: "\r\n") + response[headEnd.lowerBound...]
    }

    static let secret = "s3cret"

    /// Refusals of a server with a shared secret, a 4 KB body limit and a half-second body timeout.
    static let limited: [Case] = [
        Case(
            name: "verifyReceipt: not JSON", request: post("/verifyReceipt", "nope"),
            expected: json("200 OK", #"{"status":21000}"#)),
        Case(
            name: "verifyReceipt: no receipt-data", request: post("/sandbox/verifyReceipt", #"{"other":1}"#),
            expected: json("200 OK", #"{"status":21000}"#)),
        Case(
            name: "verifyReceipt: receipt-data not a string", request: post("/verifyReceipt", #"{"receipt-data":1}"#),
            expected: json("200 OK", #"{"status":21000}"#)),
        Case(
            name: "verifyReceipt: exclude-old-transactions not a boolean",
            request: post("/verifyReceipt", #"{"receipt-data":"QUJD","exclude-old-transactions":3}"#),
            expected: json("200 OK", #"{"status":21000}"#)),
        Case(
            name: "verifyReceipt: wrong password",
            request: post("/verifyReceipt", #"{"receipt-data":"QUJD","password":"wrong"}"#),
            expected: json("200 OK", #"{"status":21004}"#)),
        Case(
            name: "verifyReceipt: not base64", request: post("/sandbox/verifyReceipt", #"{"receipt-data":"@@@@"}"#),
            expected: json(
                "200 OK", #"{"status":21002}"#,
                with: ["X-Receipt-Decided-By: local", "X-Receipt-Reason: receipt.malformed"])),
        Case(
            name: "verifyReceipt: declared body too large",
            request: truncated("/verifyReceipt", length: 5000, sent: ""),
            expected: json("413 Payload Too Large", #"{"status":21000}"#)),
        Case(
            name: "verifyReceipt: body too slow",
            request: truncated("/verifyReceipt", length: 100, sent: "{\"receipt-"),
            expected: json("408 Request Timeout", #"{"status":21000}"#, after: ["Connection: close"])),
        Case(
            name: "v1: not JSON", request: post("/v1/verify", "{bad json"),
            expected: json("400 Bad Request", error("server.invalid_json", "expected a member name"))),
        Case(
            name: "v1: no receipt_data", request: post("/v1/verify", #"{"other":1}"#),
            expected: json("400 Bad Request", error("server.missing_receipt_data", "no receipt_data"))),
        Case(
            name: "v1: not base64", request: post("/v1/verify", #"{"receipt_data":"@@@@"}"#),
            expected: json("400 Bad Request", error("server.invalid_base64", "receipt_data is not base64 text"))),
        Case(
            name: "v1: unknown option value",
            request: post("/v1/verify", #"{"receipt_data":"QUJD","validation_time":"yesterday"}"#),
            expected: json(
                "400 Bad Request",
                error("server.invalid_option", "validation_time takes creation, now or an RFC 3339 instant"))),
        Case(
            name: "v1: a fixed validation time",
            request: post("/v1/verify", #"{"receipt_data":"QUJD","validation_time":"2025-06-15T09:30:00Z"}"#),
            expected: json(
                "400 Bad Request",
                error(
                    "server.invalid_option",
                    "a fixed validation_time could accept a chain this server's policy rejects: use creation or now"
                ))),
        Case(
            name: "v1: raw body with a bad query option",
            request: post("/v1/verify?allow_remote=maybe", "receipt", contentType: "application/octet-stream"),
            expected: json("400 Bad Request", error("server.invalid_option", "allow_remote takes true or false"))),
        Case(
            name: "v1: unsupported media type", request: post("/v1/verify", "receipt", contentType: "text/plain"),
            expected: json(
                "415 Unsupported Media Type",
                error(
                    "server.unsupported_media_type",
                    "Content-Type text/plain is not application/json or application/octet-stream"))),
        Case(
            name: "v1: wrong password", request: post("/v1/verify", #"{"receipt_data":"QUJD","password":"wrong"}"#),
            expected: json(
                "403 Forbidden", error("server.shared_secret_mismatch", "password is not this server's shared secret"))),
        Case(
            name: "v1: declared body too large", request: truncated("/v1/verify", length: 5000, sent: ""),
            expected: json(
                "413 Payload Too Large", error("server.body_too_large", "the body is 5000 bytes; the limit is 4096"))),
        Case(
            name: "v1: body too slow", request: truncated("/v1/verify", length: 100, sent: "{\"receipt_"),
            expected: json(
                "408 Request Timeout", error("server.body_timeout", "the body did not arrive within 0.5 seconds"),
                after: ["Connection: close"])),
        Case(
            name: "health", request: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
            expected: json("200 OK", #"{"status":"ok"}"#)),
    ]

    /// Refusals of a server with no free in-flight slot.
    static let overloaded: [Case] = [
        Case(
            name: "verifyReceipt: overloaded", request: post("/verifyReceipt", #"{"receipt-data":"QUJD"}"#),
            expected: json("503 Service Unavailable", #"{"status":21005}"#, after: ["Retry-After: 1"])),
        Case(
            name: "v1: overloaded", request: post("/v1/verify", #"{"receipt_data":"QUJD"}"#),
            expected: json(
                "503 Service Unavailable", error("server.overloaded", "more than 0 requests in flight"),
                after: ["Retry-After: 1"])),
    ]

    /// The cases whose body never arrives, answered after the 0.5 s body timeout.
    static let slowBodies: Set<String> = ["verifyReceipt: body too slow", "v1: body too slow"]

    @Test("each refusal of a server with a secret and limits, byte for byte")
    func limitedServer() async throws {
        // Every body that does arrive gets a generous timeout, so a machine busy running the other tests in
        // parallel cannot turn a complete request into a 408; the slow bodies get 0.5 s, on a server of their own.
        for (timeout, cases) in [
            (Duration.seconds(30), Self.limited.filter { !Self.slowBodies.contains($0.name) }),
            (.milliseconds(500), Self.limited.filter { Self.slowBodies.contains($0.name) }),
        ] {
            let configuration = Support.configuration(
                sharedSecret: Self.secret, maximumBodySize: 4096, bodyTimeout: timeout)
            try await LiveServerTests.withServer(try Support.service(configuration)) { port in
                for item in cases {
                    let response = try await Self.exchange(item.request, port: port)
                    #expect(response == item.expected, "\(item.name)")
                }
            }
        }
    }

    @Test("each refusal of an overloaded server, byte for byte")
    func overloadedServer() async throws {
        try await LiveServerTests.withServer(try Support.service(Support.configuration(maximumInFlight: 0))) { port in
            for item in Self.overloaded {
                let response = try await Self.exchange(item.request, port: port)
                #expect(response == item.expected, "\(item.name)")
            }
        }
    }
}
