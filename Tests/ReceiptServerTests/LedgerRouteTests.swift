import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptLedger
import ReceiptLedgerStores
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

/// The ledger's HTTP contract, in-process on a SQLite ledger in a temporary folder: `/v1/verify`'s `ledger`
/// member and `account`, `/verifyReceipt`'s header and unchanged body, `/v1/transactions/{id}`,
/// `/v1/entitlements`, conflicts reported or refused, and a failing store answering 503.
@Suite("ledger routes", .timeLimit(.minutes(2)))
struct LedgerRouteTests {
    typealias Support = ServerTestSupport

    static let allIDs = ["2000000100000002", "2000000100000001", "2000000100000004", "2000000100000003"]

    struct Request {
        var method: HTTPRequest.Method = .post
        var path: String
        var body: ByteBuffer?
    }

    /// Sends `requests` in order to one application on `ledger`; returns the responses.
    static func exchange(_ requests: [Request], ledger: Ledger?) async throws -> [TestResponse] {
        let service = ReceiptService(
            configuration: Support.configuration(), decider: FallbackVerifier(verifier: try Support.verifier()),
            ledger: ledger, logger: Support.quietLogger)
        return try await service.makeApplication().test(.router) { client in
            var responses: [TestResponse] = []
            for request in requests {
                responses.append(
                    try await client.execute(
                        uri: request.path, method: request.method, headers: [.contentType: "application/json"],
                        body: request.body))
            }
            return responses
        }
    }

    static func sqliteLedger(_ folder: TemporaryFolder, onConflict: ConflictPolicy = .report) throws -> Ledger {
        Ledger(
            store: try SQLiteLedgerStore(path: folder.url.appendingPathComponent("ledger.sqlite").path),
            onConflict: onConflict)
    }

    static func verify(account: String? = nil, receipt: String = "valid-sha256.receipt") throws -> Request {
        let data = Base64.encode(try Support.fixture(receipt))
        let member = account.map { ",\"account\":\"\($0)\"" } ?? ""
        return Request(path: "/v1/verify", body: ByteBuffer(string: "{\"receipt_data\":\"\(data)\"\(member)}"))
    }

    static func ledgerMember(_ response: TestResponse) throws -> [String: Any] {
        try #require(try Support.object(response.body)["ledger"] as? [String: Any])
    }

    @Test func newThenKnownThenAConflictForAnotherAccount() async throws {
        let folder = try TemporaryFolder()
        let responses = try await Self.exchange(
            [try Self.verify(account: "alice"), try Self.verify(account: "alice"), try Self.verify(account: "bob")],
            ledger: try Self.sqliteLedger(folder))
        let first = try Self.ledgerMember(responses[0])
        #expect(first["new_transaction_ids"] as? [String] == Self.allIDs)
        #expect((first["known_transaction_ids"] as? [String])?.isEmpty == true)
        let second = try Self.ledgerMember(responses[1])
        #expect((second["new_transaction_ids"] as? [String])?.isEmpty == true)
        #expect(second["known_transaction_ids"] as? [String] == Self.allIDs)
        #expect((second["conflicts"] as? [Any])?.isEmpty == true)
        let third = try Support.object(responses[2].body)
        #expect(third["verdict"] as? String == "valid", "a genuine receipt stays valid")
        let conflicts = try #require((third["ledger"] as? [String: Any])?["conflicts"] as? [[String: Any]])
        #expect(conflicts.compactMap { $0["original_transaction_id"] as? String } == Self.allIDs)
        #expect(conflicts.allSatisfy { $0["account"] as? String == "alice" })
        #expect(conflicts.first?["transaction_ids"] as? [String] == [Self.allIDs[0]])
    }

    @Test func rejectingAConflictMakesTheVerdictInvalid() async throws {
        let folder = try TemporaryFolder()
        let responses = try await Self.exchange(
            [try Self.verify(account: "alice"), try Self.verify(account: "bob")],
            ledger: try Self.sqliteLedger(folder, onConflict: .reject))
        let refused = try Support.object(responses[1].body)
        #expect(refused["verdict"] as? String == "invalid")
        #expect(refused["status"] as? Int == 21003)
        let reasons = try #require(refused["reasons"] as? [[String: Any]])
        #expect(reasons.first?["code"] as? String == "ledger.conflict")
    }

    /// `/verifyReceipt` keeps Apple's body byte for byte and lists the new ids in a header, only on a status-0
    /// answer: the sandbox receipt on the production endpoint (21007) credits nothing; the sandbox endpoint does.
    @Test func verifyReceiptGainsAHeaderOnly() async throws {
        let folder = try TemporaryFolder()
        let body = Support.appleRequest(try Support.fixture("valid-sha256.receipt"))
        let production = Request(path: "/verifyReceipt", body: body)
        let sandbox = Request(path: "/sandbox/verifyReceipt", body: body)
        let withLedger = try await Self.exchange([production, sandbox, sandbox], ledger: try Self.sqliteLedger(folder))
        let without = try await Self.exchange([production, sandbox], ledger: nil)
        let header = "X-Receipt-New-Transactions"
        #expect(try Support.status(withLedger[0].body) == 21007)
        #expect(withLedger[0].headers[.init(header)!] == "")
        #expect(withLedger[1].headers[.init(header)!] == Self.allIDs.joined(separator: ","))
        #expect(withLedger[2].headers[.init(header)!] == "")
        #expect(Support.bytes(withLedger[0].body) == Support.bytes(without[0].body))
        #expect(Support.bytes(withLedger[1].body) == Support.bytes(without[1].body))
        #expect(without[1].headers[.init(header)!] == nil)
    }

    @Test func transactionsAndEntitlementsAreServed() async throws {
        let folder = try TemporaryFolder()
        let responses = try await Self.exchange(
            [
                try Self.verify(account: "alice"),
                Request(method: .get, path: "/v1/transactions/\(Self.allIDs[0])"),
                Request(method: .get, path: "/v1/transactions/999"),
                Request(method: .get, path: "/v1/entitlements?account=alice&at=2025-06-01T00:00:00Z"),
                Request(method: .get, path: "/v1/entitlements?account=alice"),
                Request(method: .get, path: "/v1/entitlements"),
                Request(method: .get, path: "/v1/entitlements?account=alice&at=yesterday"),
            ], ledger: try Self.sqliteLedger(folder))
        let record = try Support.object(responses[1].body)
        #expect(record["product_id"] as? String == "org.example.receiptforge.pro")
        #expect(record["account"] as? String == "alice")
        #expect(record["source"] as? String == "receipt")
        #expect(responses[2].status == .notFound)
        #expect(
            try Support.object(responses[2].body)["error"].flatMap { ($0 as? [String: Any])?["code"] as? String }
                == "ledger.transaction_not_found")
        let early = try Support.object(responses[3].body)
        #expect(early["at"] as? String == "2025-06-01T00:00:00Z")
        let entitlements = try #require(early["entitlements"] as? [[String: Any]])
        #expect(
            entitlements.compactMap { $0["product_id"] as? String } == [
                "org.example.receiptforge.pro", "org.example.receiptforge.monthly",
            ])
        #expect(entitlements.compactMap { $0["state"] as? String } == ["active", "active"])
        #expect(entitlements.last?["expires_date_ms"] as? String == "1750441148000")
        // `at` defaults to the server's clock (fixed in 2023, before any of these purchases).
        let now = try Support.object(responses[4].body)
        #expect(now["at"] as? String == Support.fixedNow.description)
        #expect((now["entitlements"] as? [Any])?.isEmpty == true)
        #expect(responses[5].status == .badRequest)
        #expect(responses[6].status == .badRequest)
    }

    @Test func withoutALedgerItsRoutesSayNotFound() async throws {
        let responses = try await Self.exchange(
            [
                Request(method: .get, path: "/v1/transactions/1"),
                Request(method: .get, path: "/v1/entitlements?account=a"),
            ],
            ledger: nil)
        for response in responses {
            #expect(response.status == .notFound)
            #expect(
                try Support.object(response.body)["error"].flatMap { ($0 as? [String: Any])?["code"] as? String }
                    == "ledger.disabled")
        }
    }

    @Test(arguments: ["", "a\\u0000b", String(repeating: "x", count: 257)])
    func badAccountsAreRefused(account: String) async throws {
        let folder = try TemporaryFolder()
        let responses = try await Self.exchange(
            [try Self.verify(account: account)], ledger: try Self.sqliteLedger(folder))
        #expect(responses[0].status == .badRequest)
    }

    /// A store that fails answers 503 `ledger.unavailable` on both APIs, never a verdict.
    @Test func aFailingStoreAnswers503() async throws {
        let ledger = Ledger(store: FailingLedgerStore())
        let responses = try await Self.exchange(
            [
                try Self.verify(account: "alice"),
                Request(
                    path: "/verifyReceipt", body: Support.appleRequest(try Support.fixture("valid-sha256.receipt"))),
            ], ledger: ledger)
        #expect(responses[0].status == .serviceUnavailable)
        #expect(
            try Support.object(responses[0].body)["error"].flatMap { ($0 as? [String: Any])?["code"] as? String }
                == "ledger.unavailable")
        #expect(responses[1].status == .serviceUnavailable)
        #expect(try Support.status(responses[1].body) == 21005)
        #expect(responses[1].headers[.init("X-Receipt-Reason")!] == "ledger.unavailable")
    }

    struct FailingLedgerStore: LedgerStore {
        func commit(_ entries: [LedgerEntry]) async throws(LedgerError) -> [LedgerOutcome] {
            throw LedgerError(.unavailable, "gone")
        }
        func transaction(id: String) async throws(LedgerError) -> (LedgerTransaction, owner: String?)? { nil }
        func transactions(ownedBy account: String) async throws(LedgerError) -> [LedgerTransaction] { [] }
        func renewals(ownedBy account: String) async throws(LedgerError) -> [LedgerRenewal] { [] }
        func subscriptions(originalTransactionIDs: [String]) async throws(LedgerError) -> LedgerSubscriptions {
            throw LedgerError(.unavailable, "gone")
        }
        func latestNotificationSignedDate(
            bundleID: String, environment: ReceiptEnvironment
        ) async throws(LedgerError) -> ReceiptDate? {
            throw LedgerError(.unavailable, "gone")
        }
        func auditEntries(_ query: AuditQuery) async throws(LedgerError) -> [AuditEntry] { [] }
        func settleAndClaimEvents(
            settling: [String: LedgerEventSettlement], owner: String, now: ReceiptDate, leaseUntil: ReceiptDate,
            limit: Int
        ) async throws(LedgerError) -> [LedgerEvent] {
            throw LedgerError(.unavailable, "gone")
        }
        func events(_ query: LedgerEventQuery) async throws(LedgerError) -> [LedgerEvent] {
            throw LedgerError(.unavailable, "gone")
        }
        func requeueEvents(ids: [String]?, now: ReceiptDate) async throws(LedgerError) -> Int {
            throw LedgerError(.unavailable, "gone")
        }
        func pendingEvents() async throws(LedgerError) -> (count: Int, oldest: ReceiptDate?) {
            throw LedgerError(.unavailable, "gone")
        }
        func close() async {}
    }
}
