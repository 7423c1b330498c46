import AppleStandIn
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ReceiptForge
import ReceiptIntake
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

/// `POST /v1/sync` in-process on a SQLite ledger with the stand-in as Apple (issue 26): the answer's JSON shape, and
/// every refusal with its HTTP status and code.
@Suite("POST /v1/sync", .timeLimit(.minutes(2)))
struct ServerAPISyncRouteTests {
    typealias API = ServerAPITestSupport
    typealias Support = ServerTestSupport
    static let path = "/v1/sync"
    static let first: Int64 = 3_100_000_000

    struct Call {
        var body: String
        var headers: HTTPFields = [.contentType: "application/json"]
    }

    /// Sends `calls` to a server with a ledger and, when `apiAt` is given, a client of the stand-in there.
    static func exchange(
        _ calls: [Call], apiAt addresses: StandInAddresses?, tokens: [String] = [], folder: TemporaryFolder
    ) async throws -> [TestResponse] {
        let verifier = try API.verifier()
        var configuration = ReceiptServerConfiguration(
            host: "127.0.0.1", port: 0, maximumInFlight: 64, clock: { ServerAPISyncTests.now })
        configuration.apiTokens = tokens
        let service = ReceiptService(
            configuration: configuration, decider: FallbackVerifier(verifier: verifier),
            ledger: try API.sqliteLedger(folder),
            serverAPI: try addresses.map { try API.client($0, verifier: verifier) }, backfillsAtStart: false,
            logger: Support.quietLogger)
        return try await service.makeApplication().test(.router) { client in
            var responses: [TestResponse] = []
            for call in calls {
                responses.append(
                    try await client.execute(
                        uri: path, method: .post, headers: call.headers, body: ByteBuffer(string: call.body)))
            }
            return responses
        }
    }

    static func errorCode(_ response: TestResponse) throws -> String? {
        ((try Support.object(response.body))["error"] as? [String: Any])?["code"] as? String
    }

    static func standIn(forgedOnPageTwo: Bool = false) throws -> AppleStandIn {
        let standIn = try API.standIn(
            sandbox: ServerAPIData(bundleID: API.bundle, transactions: API.customer(first: first, count: 23)))
        if forgedOnPageTwo { standIn.scriptAPI(.sandbox, [.apple, .forgedItem(index: 0)]) }
        return standIn
    }

    @Test func aSyncAnswersTheDocumentedJSON() async throws {
        let standIn = try Self.standIn(forgedOnPageTwo: true)
        let folder = try TemporaryFolder()
        let empty = Base64.encode(try API.receipt([]))
        let responses = try await standIn.withRunning { addresses in
            try await Self.exchange(
                [
                    Call(body: #"{"transaction_id":"\#(Self.first + 3)","bundle_id":"\#(API.bundle)"}"#),
                    Call(body: #"{"transaction_id":"\#(Self.first)"}"#),
                    Call(body: #"{"receipt_data":"\#(empty)"}"#),
                ], apiAt: addresses, folder: folder)
        }
        #expect(responses.map(\.status.code) == [200, 200, 200])
        let body = try Support.object(responses[0].body)
        // `note` only when nothing was looked up.
        #expect(
            Set(body.keys)
                == [
                    "synced", "new_transaction_ids", "known_transaction_ids", "failed", "environment", "bundle_id",
                    "transaction_id",
                ])
        #expect(body["synced"] as? Int == 22)
        let new = try #require(body["new_transaction_ids"] as? [String])
        #expect(new.count == 22)
        #expect(!new.contains(String(Self.first + 20)), "the forged item is not new")
        #expect(body["known_transaction_ids"] as? [String] == [])
        let failed = try #require(body["failed"] as? [[String: Any]])
        #expect(failed.count == 1)
        #expect(failed.first?["index"] as? Int == 20)
        #expect(failed.first?["reason"] as? String == "jws.signature_mismatch")
        #expect((failed.first?["message"] as? String)?.isEmpty == false)
        #expect(body["environment"] as? String == "Sandbox")
        #expect(body["bundle_id"] as? String == API.bundle)
        #expect(body["transaction_id"] as? String == String(Self.first + 3))
        // The one app configured is assumed when none is named; the forged item is now a real one.
        let second = try Support.object(responses[1].body)
        #expect(second["synced"] as? Int == 23)
        #expect(second["new_transaction_ids"] as? [String] == [String(Self.first + 20)])
        #expect((second["known_transaction_ids"] as? [String])?.count == 22)
        #expect((second["failed"] as? [[String: Any]])?.isEmpty == true)
        // A receipt without purchases: nothing asked, nulls where Apple would have answered, and why.
        let nothing = try Support.object(responses[2].body)
        #expect(nothing["synced"] as? Int == 0)
        #expect(nothing["environment"] is NSNull)
        #expect(nothing["transaction_id"] is NSNull)
        #expect(nothing["bundle_id"] as? String == API.bundle)
        #expect((nothing["note"] as? String)?.isEmpty == false)
    }

    @Test func withoutAServerAPIClientTheRouteIsDisabled() async throws {
        let responses = try await Self.exchange(
            [Call(body: #"{"transaction_id":"1"}"#)], apiAt: nil, folder: try TemporaryFolder())
        #expect(responses.map(\.status.code) == [404])
        #expect(try Self.errorCode(responses[0]) == "server_api.disabled")
    }

    @Test func bodyMistakesAndRefusalsHaveTheirStatusAndCode() async throws {
        let standIn = try Self.standIn()
        let tampered = Base64.encode(try Support.fixture("tampered-payload.receipt"))
        let responses = try await standIn.withRunning { addresses in
            try await Self.exchange(
                [
                    Call(body: #"{"receipt_data":"\#(tampered)"}"#),
                    Call(body: #"{"receipt_data":"\#(tampered)","transaction_id":"\#(Self.first)"}"#),
                    Call(body: #"{"bundle_id":"\#(API.bundle)"}"#),
                    Call(body: #"{"transaction_id":"\#(Self.first)","bundle_id":"com.example.other"}"#),
                    Call(body: #"{"transaction_id":"9999999999"}"#),
                ], apiAt: addresses, folder: try TemporaryFolder())
        }
        #expect(responses.map(\.status.code) == [422, 400, 400, 422, 404])
        #expect(
            try responses.map(Self.errorCode) == [
                "sync.receipt_not_verified", "server.invalid_option", "server.missing_receipt_data",
                "server.unknown_bundle_id", "server_api.not_found",
            ])
        // Only the last call reached Apple (both environments, as the id was found in neither); the refused ones did
        // not.
        #expect(standIn.apiRequests().allSatisfy { $0.path == "/inApps/v2/history/9999999999" })
    }

    @Test func withTokensConfiguredTheRouteNeedsOne() async throws {
        let standIn = try Self.standIn()
        let body = #"{"transaction_id":"\#(Self.first)"}"#
        let responses = try await standIn.withRunning { addresses in
            try await Self.exchange(
                [
                    Call(body: body),
                    Call(body: body, headers: [.contentType: "application/json", .authorization: "Bearer wrong"]),
                    Call(body: body, headers: [.contentType: "application/json", .authorization: "Basic dG9rZW4="]),
                    Call(body: body, headers: [.contentType: "application/json", .authorization: "Bearer token-two"]),
                ], apiAt: addresses, tokens: ["token-one", "token-two"], folder: try TemporaryFolder())
        }
        #expect(responses.map(\.status.code) == [401, 403, 401, 200])
        #expect(
            try responses.prefix(3).map(Self.errorCode) == [
                "server.unauthorized", "server.forbidden", "server.unauthorized",
            ])
        #expect(try Support.object(responses[3].body)["synced"] as? Int == 23)
        #expect(standIn.apiRequests(.sandbox).count == 2, "only the authorized call spent Apple's budget")
    }
}
