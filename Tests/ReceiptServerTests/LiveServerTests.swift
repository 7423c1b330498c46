import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOHTTP1
import ReceiptIntake
import ReceiptModel
import ReceiptServer
import ReceiptVerification
import ServiceLifecycle
import TestSupport
import Testing

/// The server over a real loopback socket: Apple's contract, limits, slow clients, overload and
/// graceful shutdown, each checked while a normal request still succeeds.
@Suite("live server", .timeLimit(.minutes(3)))
struct LiveServerTests {
    typealias Support = ServerTestSupport

    /// Runs `service` on an ephemeral port for the duration of `body`, then shuts it down gracefully.
    static func withServer<T: Sendable>(
        _ service: ReceiptService, _ body: @Sendable (Int) async throws -> T
    ) async throws -> T {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = service.makeApplication { port in continuation.yield(port ?? 0) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: Support.quietLogger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0 else {
                await group.triggerGracefulShutdown()
                throw RawConnectionError.connect
            }
            do {
                let value = try await body(port)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return value
            } catch {
                await group.triggerGracefulShutdown()
                throw error
            }
        }
    }

    /// POSTs over the socket with AsyncHTTPClient; returns HTTP status and body.
    static func post(port: Int, path: String, body: [UInt8]) async throws -> (status: Int, body: [UInt8]) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(body)
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), Array(bytes.readableBytesView))
    }

    static func appleBody(_ receipt: [UInt8]) -> [UInt8] {
        Array(Support.appleRequest(receipt).readableBytesView)
    }

    static func status(_ body: [UInt8]) throws -> Int {
        try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])["status"] as? Int ?? -1
    }

    @Test("HummingbirdTesting .live: a fixture verifies over the socket, its receipt exactly AppleReceiptJSON's")
    func liveModeFixture() async throws {
        let receipt = try Support.fixture("valid-sha256.receipt")
        let expected = AppleReceiptJSON.render(
            try AppReceipt(berEncoded: receipt).payload, requestDate: Support.fixedNow)
        try await Support.service().makeApplication().test(.live) { client in
            let response = try await client.execute(
                uri: "/sandbox/verifyReceipt", method: .post, body: Support.appleRequest(receipt))
            #expect(response.status == .ok)
            #expect(try Support.status(response.body) == 0)
            #expect(try Support.receiptObjectBytes(Support.bytes(response.body)) == expected)
        }
    }

    @Test(
        "every real receipt over the socket: status 0 and the CLI's receipt object",
        .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func realReceiptsOverTheSocket() async throws {
        let service = try Support.service(allowXcode: true)
        try await Self.withServer(service) { port in
            for name in SharedTestData.receiptNames {
                let bytes = try SharedTestData.receiptBytes(name)
                let payload = try AppReceipt(berEncoded: bytes).payload
                let path = payload.receiptType == "Production" ? "/verifyReceipt" : "/sandbox/verifyReceipt"
                let (code, body) = try await Self.post(port: port, path: path, body: Self.appleBody(bytes))
                #expect(code == 200, "\(name)")
                #expect(try Self.status(body) == 0, "\(name)")
                #expect(
                    try Support.receiptObjectBytes(body)
                        == AppleReceiptJSON.render(payload, requestDate: Support.fixedNow), "\(name)")
            }
        }
    }

    @Test("a 50 MB body is refused with 413 while a normal request still succeeds")
    func fiftyMegabyteBody() async throws {
        let receipt = try Support.fixture("valid-sha256.receipt")
        try await Self.withServer(try Support.service()) { port in
            // Declared length: refused from the head.
            let declared = try RawConnection(port: port)
            let size = 50 * 1024 * 1024
            declared.send(
                "POST /verifyReceipt HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(size)\r\n\r\n"
            )
            let chunk = [UInt8](repeating: UInt8(ascii: "A"), count: 1 << 16)
            async let writer: Void = onOwnThread {
                var sent = 0
                while sent < size, declared.send(chunk) { sent += chunk.count }
            }
            let normal = try await Self.post(port: port, path: "/sandbox/verifyReceipt", body: Self.appleBody(receipt))
            #expect(normal.status == 200)
            #expect(try Self.status(normal.body) == 0)
            let response = await onOwnThread { declared.receiveResponse() }
            #expect(RawConnection.statusCode(response) == 413)
            #expect(response.contains(#"{"status":21000}"#))
            await writer

            // Chunked, no declared length: refused once the bytes read pass the limit.
            let chunked = try RawConnection(port: port)
            chunked.send(
                "POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            async let streamer: Void = onOwnThread {
                var sent = 0
                let piece = Array("10000\r\n".utf8) + chunk + Array("\r\n".utf8)
                while sent < size, chunked.send(piece) { sent += chunk.count }
            }
            let refused = await onOwnThread { chunked.receiveResponse() }
            #expect(RawConnection.statusCode(refused) == 413)
            #expect(refused.contains("server.body_too_large"))
            await streamer
            let after = try await Self.post(port: port, path: "/sandbox/verifyReceipt", body: Self.appleBody(receipt))
            #expect(after.status == 200)
        }
    }

    @Test("a client that sends its head and stalls gets 408 after the body timeout, then a close; others go on")
    func slowClient() async throws {
        let receipt = try Support.fixture("valid-sha256.receipt")
        let service = try Support.service(Support.configuration(bodyTimeout: .milliseconds(800)))
        try await Self.withServer(service) { port in
            let stalled = try RawConnection(port: port)
            stalled.send("POST /verifyReceipt HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{\"receipt-data\":\"")
            // While it stalls, a normal request is answered at once.
            let normal = try await Self.post(port: port, path: "/sandbox/verifyReceipt", body: Self.appleBody(receipt))
            #expect(normal.status == 200)
            #expect(try Self.status(normal.body) == 0)
            let response = await onOwnThread { stalled.receiveResponse() }
            // Only the body deadline answers 408 (the idle timeout closes without a word), so no wall-clock bound is
            // needed here, and none could hold on a stalled host; BodyDeadlineHandlerTests times it on virtual time.
            #expect(RawConnection.statusCode(response) == 408)
            // What the client sends next can no longer be told from the late body: the connection is closed.
            #expect(await onOwnThread { stalled.waitForClose() })
        }
    }

    @Test("a head that never completes is closed after the idle timeout")
    func incompleteHeadIsClosed() async throws {
        var configuration = Support.configuration()
        configuration.idleTimeout = .milliseconds(500)
        try await Self.withServer(try Support.service(configuration)) { port in
            let stalled = try RawConnection(port: port)
            stalled.send("POST /verifyReceipt HTTP/1.1\r\nHost: x\r\n")
            #expect(await onOwnThread { stalled.waitForClose() })
        }
    }

    @Test("beyond the in-flight bound: 503 with status 21005 (and server.overloaded on v1); held requests finish")
    func overload() async throws {
        let decider = GatedDecider(verifier: try Support.verifier())
        let service = try Support.service(Support.configuration(maximumInFlight: 2), decider: decider)
        let receipt = try Support.fixture("valid-sha256.receipt")
        try await Self.withServer(service) { port in
            async let first = Self.post(port: port, path: "/sandbox/verifyReceipt", body: Self.appleBody(receipt))
            async let second = Self.post(port: port, path: "/sandbox/verifyReceipt", body: Self.appleBody(receipt))
            try await decider.waitForArrivals(2)
            let refused = try await Self.post(port: port, path: "/sandbox/verifyReceipt", body: Self.appleBody(receipt))
            #expect(refused.status == 503)
            #expect(try Self.status(refused.body) == 21005)
            let v1 = try await Self.post(
                port: port, path: "/v1/verify", body: Array("{\"receipt_data\":\"\(Base64.encode(receipt))\"}".utf8))
            #expect(v1.status == 503)
            #expect(String(decoding: v1.body, as: UTF8.self).contains("server.overloaded"))
            decider.open()
            let answers = try await [first, second]
            for answer in answers {
                #expect(answer.status == 200)
                #expect(try Self.status(answer.body) == 0)
            }
        }
    }

    @Test("graceful shutdown finishes every in-flight request")
    func gracefulShutdownLosesNothing() async throws {
        let decider = GatedDecider(verifier: try Support.verifier())
        let service = try Support.service(decider: decider)
        let receipt = try Support.fixture("valid-sha256.receipt")
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = service.makeApplication { port in continuation.yield(port ?? 0) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: Support.quietLogger))
        let count = 6
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let requests = (0..<count).map { _ in
                Task { try await Self.post(port: port, path: "/sandbox/verifyReceipt", body: Self.appleBody(receipt)) }
            }
            try await decider.waitForArrivals(count)
            await group.triggerGracefulShutdown()
            try await Task.sleep(for: .milliseconds(200))  // shutdown is under way while all are held
            decider.open()
            for request in requests {
                let answer = try await request.value
                #expect(answer.status == 200)
                #expect(try Self.status(answer.body) == 0)
            }
            try await tasks.waitForAll()  // the service group returned: the server stopped
        }
    }
}
