import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ReceiptLedger
import ReceiptLedgerStores
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import ReceiptWebhooks
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// The server with a webhook, in-process on a SQLite ledger that records events: verifications through the routes
/// become events in the outbox, the service's deliverer POSTs them to a loopback receiver in order per key, and
/// `/metrics` counts the attempts and shows the queue drained.
@Suite("webhook server", .timeLimit(.minutes(2)))
struct WebhookServerTests {
    typealias Support = ServerTestSupport

    /// What the receiver got: the event id header, the signature header and the body.
    final class Received: Sendable {
        private let requests = Mutex<[(id: String?, signature: String?, body: [UInt8])]>([])
        var all: [(id: String?, signature: String?, body: [UInt8])] { requests.withLock { $0 } }
        func add(_ request: (id: String?, signature: String?, body: [UInt8])) {
            requests.withLock { $0.append(request) }
        }
    }

    // swift-format-ignore: NeverForceUnwrap
    static let eventIDHeader = HTTPField.Name("X-Receipt-Event-Id")!  // a constant, valid token
    // swift-format-ignore: NeverForceUnwrap
    static let signatureHeader = HTTPField.Name("X-Receipt-Signature")!  // a constant, valid token

    /// Runs a receiver answering 200 on loopback for the duration of `body`.
    static func withReceiver<T: Sendable>(
        _ received: Received, _ body: @Sendable (Int) async throws -> T
    ) async throws -> T {
        let router = Router()
        router.post("/hooks") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            received.add(
                (
                    request.headers[Self.eventIDHeader], request.headers[Self.signatureHeader],
                    Array(bytes.readableBytesView)
                ))
            return Response(status: .ok)
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: Support.quietLogger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: Support.quietLogger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = await iterator.next() ?? 0
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

    @Test func verificationsBecomeSignedDeliveriesInOrderPerKey() async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteLedgerStore(
            path: folder.url.appendingPathComponent("ledger.sqlite").path,
            options: LedgerStoreOptions(recordsEvents: true))
        let ledger = Ledger(store: store)
        let received = Received()
        let receipt = Base64.encode(try Support.fixture("valid-sha256.receipt"))

        try await Self.withReceiver(received) { port in
            let webhooks = try WebhookConfiguration(
                url: "http://127.0.0.1:\(port)/hooks", secrets: ["whsec_server_test"], timeout: .seconds(25),
                backoff: WebhookBackoff(initial: .milliseconds(20), maximum: .milliseconds(100)),
                pollInterval: .milliseconds(20))
            let service = try ReceiptService(
                configuration: Support.configuration(), decider: FallbackVerifier(verifier: try Support.verifier()),
                ledger: ledger, webhooks: webhooks, logger: Support.quietLogger)
            let deliverer = try #require(service.webhooks)
            try await service.makeApplication().test(.router) { client in
                for account in ["alice", "bob"] {
                    let response = try await client.execute(
                        uri: "/v1/verify", method: .post, headers: [.contentType: "application/json"],
                        body: ByteBuffer(string: #"{"receipt_data":"\#(receipt)","account":"\#(account)"}"#))
                    #expect(response.status == .ok)
                }
                let recorded = try await store.events(LedgerEventQuery())
                #expect(recorded.contains { $0.kind == .purchaseNew })
                #expect(recorded.contains { $0.kind == .ownershipConflict })
                let pendingBefore = try await store.pendingEvents().count
                #expect(pendingBefore == recorded.count)

                let task = Task { await deliverer.run() }
                var drained = false
                for _ in 0..<1_000 where !drained {
                    drained = try await store.pendingEvents().count == 0
                    if !drained { try await Task.sleep(for: .milliseconds(20)) }
                }
                task.cancel()
                await task.value
                #expect(drained)

                let delivered = try await store.events(LedgerEventQuery())
                #expect(delivered.allSatisfy { $0.state == .delivered && $0.attempts == 1 })
                let requests = received.all
                #expect(requests.count == recorded.count)
                for request in requests {
                    // The header names the body's event, and the signature has its shape.
                    let object = try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
                    #expect(object?["id"] as? String == request.id)
                    #expect(request.signature?.hasPrefix("t=") == true && request.signature?.contains(",v1=") == true)
                }
                // Per key, in commit order.
                let order = requests.compactMap(\.id)
                for key in Set(recorded.map(\.key)) {
                    let committed = recorded.filter { $0.key == key }.map(\.id)
                    #expect(order.filter { committed.contains($0) } == committed, "key \(key)")
                }

                let metrics = try await client.execute(uri: "/metrics", method: .get)
                let text = String(decoding: Support.bytes(metrics.body), as: UTF8.self)
                #expect(text.contains("receipt_server_webhook_queue_depth 0"))
                #expect(
                    text.contains(#"receipt_server_webhook_attempts_total{type="purchase.new",result="delivered"}"#))
                #expect(text.contains("receipt_server_webhook_oldest_pending_age_seconds 0"))
            }
        }
        await store.close()
    }
}
