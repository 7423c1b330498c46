import AppleStandIn
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ReceiptForge
import ReceiptIntake
import ReceiptLedger
import ReceiptLedgerStores
import ReceiptModel
import ReceiptRemote
@_spi(Fuzzing) import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

/// Issue 24's classes, tried as an attacker would, in-process on a real SQLite file and a real PostgreSQL database:
/// an intercepted Apple (a loopback stand-in answering what the attacker wants), another app's receipt with the
/// victim's product ids, reads without or with a wrong token, byte-level bodies, oversized ids mixed into a batch,
/// and refunds decided by the order Apple signed its statements in.
@Suite("the ledger under attack", .timeLimit(.minutes(3)))
struct LedgerAttackTests {
    typealias Support = ServerTestSupport

    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
        var isAvailable: Bool { self == .sqlite || PostgresTestDatabase.clusterURL != nil }
    }

    /// A fresh, empty ledger of one store: a SQLite file in a temporary folder, or a database of its own on the test
    /// cluster (dropped when the place goes).
    final class Place: @unchecked Sendable {
        let folder: TemporaryFolder
        let database: PostgresTestDatabase?

        init(_ store: Store) async throws {
            folder = try TemporaryFolder()
            database = store == .postgres ? try await PostgresTestDatabase.create(prefix: "ledger_attack") : nil
        }

        func ledger(onConflict: ConflictPolicy = .report) async throws -> Ledger {
            let location =
                try database.map { try LedgerLocation(parsing: $0.url) }
                ?? .sqlite(path: folder.url.appendingPathComponent("ledger.sqlite").path)
            var logger = Logger(label: "ledger-attack")
            logger.logLevel = .critical
            let open: @Sendable () async throws -> (any LedgerStore)? = { [logger] in
                try await Ledger.openStore(location, logger: logger)
            }
            let opened = if let database { try await database.opening(open) } else { try await open() }
            guard let store = opened else {
                throw LedgerError(.invalidLocation, "none")
            }
            return Ledger(store: store, onConflict: onConflict)
        }

        deinit { database?.drop() }
    }

    struct Call {
        var method: HTTPRequest.Method = .post
        var path: String
        var body: String?
        var headers: HTTPFields = [.contentType: "application/json"]
    }

    static let bundle = "org.example.receiptforge.sample"
    static let receiptIDs = ["2000000100000001", "2000000100000002", "2000000100000003", "2000000100000004"]
    static let monthly = "2000000100000003"
    static let certs = SharedTestData.packageRoot.appendingPathComponent("certs")

    /// Trusts the test roots (receipts and JWS); the operator's app is ``bundle``.
    static func verifier(bundles: Set<String> = [bundle]) throws -> ReceiptVerifier {
        var anchors = TrustAnchors()
        for root in ["test-root.pem", "test-jws-root.pem"] {
            try anchors.addRoots(fromPath: certs.appendingPathComponent(root).path)
        }
        var policy = ReceiptPolicy()
        policy.acceptedBundleIDs = bundles
        return ReceiptVerifier(configuration: .init(trustAnchors: anchors, policy: policy))
    }

    static func service(
        ledger: Ledger, decider: (any ReceiptDecider)? = nil, host: String = "127.0.0.1", tokens: [String] = [],
        sharedSecret: String? = nil, now: ReceiptDate = Support.fixedNow
    ) throws -> ReceiptService {
        var configuration = ReceiptServerConfiguration(
            host: host, port: 0, sharedSecret: sharedSecret, maximumInFlight: 512, clock: { now })
        configuration.apiTokens = tokens
        return ReceiptService(
            configuration: configuration, decider: try decider ?? FallbackVerifier(verifier: verifier()),
            ledger: ledger, logger: Support.quietLogger)
    }

    /// Sends `calls` in order; the responses.
    static func exchange(_ calls: [Call], _ service: ReceiptService) async throws -> [TestResponse] {
        try await service.makeApplication().test(.router) { client in
            var responses: [TestResponse] = []
            for call in calls {
                responses.append(
                    try await client.execute(
                        uri: call.path, method: call.method, headers: call.headers,
                        body: call.body.map { ByteBuffer(string: $0) }))
            }
            return responses
        }
    }

    static func receipt(_ name: String = "valid-sha256.receipt") throws -> String {
        Base64.encode(try Support.fixture(name))
    }

    static func verify(account: String?, password: String? = nil, receipt: String) -> Call {
        var object = ["receipt_data": receipt]
        object["account"] = account
        object["password"] = password
        return Call(path: "/v1/verify", body: json(object))
    }

    static func json(_ object: [String: String]) -> String {
        String(
            decoding: (try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)) ?? Data(),
            as: UTF8.self)
    }

    static func get(_ path: String, token: String? = nil) -> Call {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        return Call(method: .get, path: path, body: nil, headers: headers)
    }

    static func ledgerMember(_ response: TestResponse) throws -> [String: Any] {
        try #require(try Support.object(response.body)["ledger"] as? [String: Any])
    }

    static func errorCode(_ response: TestResponse) throws -> String? {
        (try Support.object(response.body)["error"] as? [String: Any])?["code"] as? String
    }

    // MARK: - 1. Unsigned words never rewrite signed facts

    /// What an intercepted verifyReceipt endpoint answers: status 0 for the receipt (its `in_app` names the
    /// receipt's transactions, so the fallback lets it decide), with the receipt's subscription rewritten to another
    /// product without an expiry and its non-consumable refunded; `latest_receipt_info` holds one genuine-looking
    /// renewal of the subscription, one under the subscription's id for another product, one under a new original
    /// transaction id, and a refund of the non-consumable.
    static let interceptedAnswer = """
        {"status":0,"environment":"Sandbox","receipt":{"bundle_id":"org.example.receiptforge.sample","in_app":[
        {"transaction_id":"2000000100000001","original_transaction_id":"2000000100000001","product_id":"org.example.receiptforge.coins100"},
        {"transaction_id":"2000000100000002","original_transaction_id":"2000000100000002","product_id":"org.example.receiptforge.pro","cancellation_date_ms":"1750000000000"},
        {"transaction_id":"2000000100000003","original_transaction_id":"2000000100000003","product_id":"org.example.evil"},
        {"transaction_id":"2000000100000004","original_transaction_id":"2000000100000004","product_id":"org.example.receiptforge.coins100"}]},
        "latest_receipt_info":[
        {"transaction_id":"2000000100000005","original_transaction_id":"2000000100000003","product_id":"org.example.receiptforge.monthly","purchase_date_ms":"1750441148000","expires_date_ms":"1782000000000"},
        {"transaction_id":"2000000100000006","original_transaction_id":"2000000100000003","product_id":"org.example.receiptforge.pro","purchase_date_ms":"1750441148000","expires_date_ms":"1782000000000"},
        {"transaction_id":"2000000900000001","original_transaction_id":"2000000900000001","product_id":"org.example.receiptforge.monthly","purchase_date_ms":"1750441148000","expires_date_ms":"1782000000000"},
        {"transaction_id":"2000000100000002","original_transaction_id":"2000000100000002","product_id":"org.example.receiptforge.pro","cancellation_date_ms":"1750000000000"}]}
        """

    @Test(arguments: Store.allCases)
    func anInterceptedAppleAddsOnlyRenewalsTiedToTheOwnersReceipt(store: Store) async throws {
        guard store.isAvailable else { return }
        let place = try await Place(store)
        let ledger = try await place.ledger()
        let standIn = AppleStandIn()
        standIn.setDefault(.sandbox, .body(Self.interceptedAnswer))
        standIn.setDefault(.production, .body(Self.interceptedAnswer))
        let receipt = try Self.receipt()
        // 2026: the receipt's subscription (expired 2025-06-20) sends a request with a password to Apple.
        let now = try #require(ReceiptDate(rfc3339: "2026-01-01T00:00:00Z"))
        try await standIn.withRunning { addresses in
            let decider = try FallbackVerifier.apple(
                verifier: Self.verifier(), productionURL: addresses.productionURL, sandboxURL: addresses.sandboxURL,
                deadline: .seconds(60), logger: Support.quietLogger)
            let service = try Self.service(ledger: ledger, decider: decider, sharedSecret: "secret", now: now)
            let responses = try await Self.exchange(
                [
                    // alice owns the receipt's purchases (decided locally: no password, no question for Apple).
                    Self.verify(account: "alice", receipt: receipt),
                    // Anyone replays it to /verifyReceipt with the password: Apple (intercepted) decides.
                    Call(
                        path: "/sandbox/verifyReceipt",
                        body: Self.json(["receipt-data": receipt, "password": "secret"])),
                    Self.get("/v1/transactions/\(Self.monthly)"), Self.get("/v1/transactions/2000000100000002"),
                    Self.get("/v1/transactions/2000000100000005"), Self.get("/v1/transactions/2000000900000001"),
                    // alice asks with the password: the renewal under her own subscription may be added, nothing else.
                    Self.verify(account: "alice", password: "secret", receipt: receipt),
                    Self.get("/v1/transactions/2000000100000005"), Self.get("/v1/transactions/2000000100000006"),
                    Self.get("/v1/transactions/2000000900000001"), Self.get("/v1/transactions/\(Self.monthly)"),
                    Self.get("/v1/transactions/2000000100000002"),
                ], service)
            #expect(
                try Set(Self.ledgerMember(responses[0])["new_transaction_ids"] as? [String] ?? [])
                    == Set(Self.receiptIDs))
            #expect(responses[1].headers[.init("X-Receipt-Decided-By")!] == "remote")
            // Callers naming no account hear of the receipt's own ids once; nothing Apple alone said.
            let header = responses[1].headers[.init("X-Receipt-New-Transactions")!] ?? ""
            #expect(Set(header.split(separator: ",").map(String.init)) == Set(Self.receiptIDs))
            for response in [responses[2], responses[10]] {
                let monthly = try Support.object(response.body)
                #expect(monthly["product_id"] as? String == "org.example.receiptforge.monthly", "not rewritten")
                #expect(monthly["expires_date_ms"] as? String == "1750441148000", "its expiry kept")
                #expect(monthly["source"] as? String == "receipt")
            }
            for response in [responses[3], responses[11]] {
                let pro = try Support.object(response.body)
                #expect(
                    pro["cancellation_date_ms"] == nil || pro["cancellation_date_ms"] is NSNull, "no unsigned refund")
                #expect(pro["account"] as? String == "alice")
            }
            #expect(responses[4].status == .notFound, "no unsigned renewal added to alice's purchase by someone else")
            #expect(responses[5].status == .notFound, "no purchase under a new original transaction id")
            #expect(responses[6].headers[.init("X-Receipt-Decided-By")!] == nil)
            let answer = try Support.object(responses[6].body)
            #expect(answer["decided_by"] as? String == "remote")
            #expect(try Self.ledgerMember(responses[6])["new_transaction_ids"] as? [String] == ["2000000100000005"])
            let renewal = try Support.object(responses[7].body)
            #expect(renewal["source"] as? String == "apple_verify_receipt", "recorded with its source")
            #expect(renewal["account"] as? String == "alice")
            #expect(renewal["original_transaction_id"] as? String == Self.monthly)
            #expect(responses[8].status == .notFound, "another product under the subscription is not a renewal")
            #expect(responses[9].status == .notFound)
        }
    }

    /// Apple's unsigned answer is superseded by the next signed statement about the same transaction, and never
    /// changes one a signed statement recorded.
    @Test(arguments: Store.allCases)
    func aSignedStatementSupersedesAnUnsignedOne(store: Store) async throws {
        guard store.isAvailable else { return }
        let place = try await Place(store)
        let ledger = try await place.ledger()
        let time = ReceiptDate(clampingMillisecondsSince1970: 1_760_000_000_000)
        func entry(_ transaction: LedgerTransaction) -> LedgerEntry {
            LedgerEntry(
                time: time, endpoint: "/v1/verify", receiptSHA256: "ab", verdict: .valid, reason: nil,
                decidedBy: .remote, account: "alice", transactions: [transaction])
        }
        var unsigned = LedgerTransaction(
            transactionID: "5", originalTransactionID: "1", productID: "wrong.product", kind: .unknown,
            bundleID: Self.bundle, environment: .sandbox, expiresDate: time, source: .appleVerifyReceipt,
            firstSeen: time, lastSeen: time)
        var signed = unsigned
        signed.productID = "org.example.receiptforge.monthly"
        signed.source = .storeKit
        signed.signedDate = time
        signed.expiresDate = ReceiptDate(clampingMillisecondsSince1970: 1_770_000_000_000)
        #expect(try await ledger.record(entry(unsigned)).newTransactionIDs == ["5"])
        #expect(try await ledger.record(entry(signed)).knownTransactionIDs == ["5"])
        unsigned.productID = "rewritten.again"
        unsigned.cancellationDate = time
        _ = try await ledger.record(entry(unsigned))
        let (held, owner) = try #require(try await ledger.transaction(id: "5"))
        #expect(owner == "alice")
        #expect(held.productID == "org.example.receiptforge.monthly")
        #expect(held.source == .storeKit)
        #expect(held.expiresDate == signed.expiresDate)
        #expect(held.cancellationDate == nil)
        await ledger.close()
    }

    // MARK: - 2. "New" reaches the owner

    /// A StoreKit 2 renewal of the fixture's subscription (original 2000000100000003), signed at `signed`.
    static func renewal(_ id: String, signed: Int64 = 1_751_000_000_000) throws -> String {
        let payload = """
            {"transactionId":"\(id)","originalTransactionId":"\(monthly)","bundleId":"\(bundle)",\
            "productId":"org.example.receiptforge.monthly","purchaseDate":1750441148000,\
            "originalPurchaseDate":1747849148000,"expiresDate":1753033148000,"quantity":1,\
            "type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","signedDate":\(signed),\
            "environment":"Sandbox","transactionReason":"RENEWAL"}
            """
        return try minter.mint(payloadJSON: Array(payload.utf8), variant: nil)
    }

    /// Apple's DID_RENEW for `transaction`, as the body Apple POSTs.
    static func didRenew(_ transaction: String, uuid: String) throws -> String {
        let payload = """
            {"notificationType":"DID_RENEW","notificationUUID":"\(uuid)","version":"2.0",\
            "signedDate":1751000000000,"data":{"bundleId":"\(bundle)","environment":"Sandbox",\
            "signedTransactionInfo":"\(transaction)","status":1}}
            """
        let jws = try minter.mint(payloadJSON: Array(payload.utf8), variant: nil)
        return String(decoding: JWSMinter.notificationBody(signedPayload: jws), as: UTF8.self)
    }

    /// Apple pushes the renewal first; an account-less caller and another account see it too. The owner's next
    /// verification still finds it new, once.
    @Test(arguments: Store.allCases)
    func aRenewalAppleNotifiedFirstIsStillNewToItsOwner(store: Store) async throws {
        guard store.isAvailable else { return }
        let place = try await Place(store)
        let service = try Self.service(ledger: try await place.ledger())
        let renewal = try Self.renewal("2000000100000007")
        let signed = { (account: String?) -> Call in
            var object = ["signed_transaction": renewal]
            object["account"] = account
            return Call(path: "/v1/verify", body: Self.json(object))
        }
        let responses = try await Self.exchange(
            [
                Self.verify(account: "alice", receipt: try Self.receipt()),
                Call(path: "/v1/notifications/appstore", body: try Self.didRenew(renewal, uuid: "uuid-renewal-1")),
                signed(nil), signed("mallory"), signed("alice"), signed("alice"),
            ], service)
        #expect(responses.map(\.status.code) == [200, 200, 200, 200, 200, 200])
        #expect(try Support.object(responses[1].body)["status"] as? String == "recorded")
        let news = try responses[2...].map { try Self.ledgerMember($0)["new_transaction_ids"] as? [String] }
        #expect(news == [["2000000100000007"], [], ["2000000100000007"], []])
        let conflicts = try Self.ledgerMember(responses[3])["conflicts"] as? [[String: Any]]
        #expect(conflicts?.first?["account"] as? String == "alice")
    }

    // MARK: - 3. Only the operator's apps are credited

    /// Another app's receipt holding the very transaction and product ids of the operator's (the legacy fixture):
    /// refused by the operator's policy, recorded nowhere, no entitlement; the operator's own receipt's entitlements
    /// name their bundle and environment.
    @Test(arguments: Store.allCases)
    func anotherAppsReceiptIsNeverCredited(store: Store) async throws {
        guard store.isAvailable else { return }
        let place = try await Place(store)
        let service = try Self.service(ledger: try await place.ledger())
        let at = "at=2025-06-16T00:00:00Z"
        let responses = try await Self.exchange(
            [
                Self.verify(account: "mallory", receipt: try Self.receipt("valid-sha1.receipt")),
                Self.get("/v1/transactions/2000000100000002"), Self.get("/v1/entitlements?account=mallory&\(at)"),
                Self.verify(account: "alice", receipt: try Self.receipt()),
                Self.get("/v1/entitlements?account=alice&\(at)"),
            ], service)
        let refused = try Support.object(responses[0].body)
        #expect(refused["verdict"] as? String == "invalid")
        #expect(try Self.ledgerMember(responses[0])["new_transaction_ids"] as? [String] == [])
        #expect(responses[1].status == .notFound)
        #expect((try Support.object(responses[2].body)["entitlements"] as? [Any])?.isEmpty == true)
        let entitlements = try #require(try Support.object(responses[4].body)["entitlements"] as? [[String: Any]])
        #expect(!entitlements.isEmpty)
        #expect(entitlements.allSatisfy { $0["bundle_id"] as? String == Self.bundle })
        #expect(entitlements.allSatisfy { $0["environment"] as? String == "Sandbox" })
    }

    // MARK: - 4. Ledger reads are the backend's

    @Test(arguments: Store.allCases)
    func ledgerReadsAndBindingNeedABearerToken(store: Store) async throws {
        guard store.isAvailable else { return }
        let place = try await Place(store)
        let ledger = try await place.ledger()
        let tokens = ["first-token-0123456789", "second-token-0123456789"]
        let service = try Self.service(ledger: ledger, host: "0.0.0.0", tokens: tokens)
        var authorized = Self.verify(account: "alice", receipt: try Self.receipt())
        authorized.headers[.authorization] = "Bearer \(tokens[1])"
        var wrong = Self.verify(account: "mallory", receipt: try Self.receipt())
        wrong.headers[.authorization] = "Bearer \(tokens[0])x"
        let transaction = "/v1/transactions/2000000100000002"
        let entitlements = "/v1/entitlements?account=alice"
        let responses = try await Self.exchange(
            [
                Self.verify(account: "mallory", receipt: try Self.receipt()), wrong, authorized,
                Self.get(transaction), Self.get(transaction, token: "nope"), Self.get(transaction, token: tokens[0]),
                Self.get(entitlements), Self.get(entitlements, token: tokens[0] + tokens[1]),
                Self.get(entitlements, token: tokens[1]),
                Call(method: .get, path: transaction, headers: [.authorization: "Basic \(tokens[0])"]),
                // Apple's routes and an account-less verification keep their own rules.
                Self.verify(account: nil, receipt: try Self.receipt()),
                Call(path: "/sandbox/verifyReceipt", body: Self.json(["receipt-data": try Self.receipt()])),
            ], service)
        #expect(responses.map(\.status.code) == [401, 403, 200, 401, 403, 200, 401, 403, 200, 401, 200, 200])
        #expect(try Self.errorCode(responses[0]) == "server.unauthorized")
        #expect(responses[0].headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
        #expect(try Self.errorCode(responses[1]) == "server.forbidden")
        // The refused binding attempts bound nothing: alice's authorized call found every id new and owns them.
        #expect(
            try Set(Self.ledgerMember(responses[2])["new_transaction_ids"] as? [String] ?? []) == Set(Self.receiptIDs))
        #expect(try Support.object(responses[5].body)["account"] as? String == "alice")
        #expect(!service.configuration.description.contains(tokens[0]), "tokens are never written out")

        // Without tokens: served on loopback only.
        let open = try Self.service(ledger: ledger, host: "0.0.0.0")
        let loopback = try Self.service(ledger: ledger, host: "127.0.0.1")
        let refused = try await Self.exchange([Self.get(transaction), Self.get(entitlements)], open)
        #expect(refused.map(\.status.code) == [403, 403])
        let served = try await Self.exchange([Self.get(transaction)], loopback)
        #expect(served.map(\.status.code) == [200])
    }

    // MARK: - 5. Inputs are exactly what was sent

    @Test(arguments: Store.allCases)
    func inputsThatAreNotWhatTheySayAreRefused(store: Store) async throws {
        guard store.isAvailable else { return }
        let place = try await Place(store)
        let service = try Self.service(ledger: try await place.ledger())
        let receipt = try Self.receipt()
        let raw: HTTPFields = [.contentType: "application/octet-stream"]
        let rawReceipt = String(decoding: try Support.fixture("valid-sha256.receipt"), as: UTF8.self)
        let calls: [(Call, code: String?, status: Int)] = [
            // Lone surrogates: two different accounts would both read as "a\u{FFFD}".
            (
                Call(path: "/v1/verify", body: #"{"receipt_data":"\#(receipt)","account":"a\ud800"}"#),
                "server.invalid_json", 400
            ),
            (
                Call(path: "/v1/verify", body: #"{"receipt_data":"\#(receipt)","account":"a\udfff"}"#),
                "server.invalid_json", 400
            ),
            // A percent-decoded byte that is not UTF-8, in the query of a raw body and of a read.
            (Call(path: "/v1/verify?account=a%FF", body: rawReceipt, headers: raw), "server.invalid_option", 400),
            (Call(path: "/v1/verify?account=a%F", body: rawReceipt, headers: raw), "server.invalid_option", 400),
            (Self.get("/v1/entitlements?account=a%C3"), "server.invalid_option", 400),
            // Duplicated members that matter, refused the same way everywhere.
            (
                Call(path: "/v1/verify", body: #"{"receipt_data":"\#(receipt)","receipt_data":"AAAA"}"#),
                "server.duplicate_member", 400
            ),
            (
                Call(path: "/v1/verify", body: #"{"receipt_data":"\#(receipt)","account":"a","account":"b"}"#),
                "server.duplicate_member", 400
            ),
            (
                Call(path: "/v1/verify", body: #"{"signed_transaction":"a.b.c","signed_transaction":"d.e.f"}"#),
                "server.duplicate_member", 400
            ),
            (
                Call(path: "/v1/verify", body: #"{"receipt_data":"\#(receipt)","password":"a","password":"b"}"#),
                "server.duplicate_member", 400
            ),
            (Self.get("/v1/entitlements?account=a&account=b"), "server.duplicate_member", 400),
            (
                Call(path: "/v1/notifications/appstore", body: #"{"signedPayload":"a.b.c","signedPayload":"d.e.f"}"#),
                "server.duplicate_member", 400
            ),
            (
                Call(
                    path: "/v1/notifications/appstore",
                    body:
                        #"{"notification_type":"RENEWAL","password":"x","password":"y","unified_receipt":{"latest_receipt":"\#(receipt)"}}"#
                ), "server.duplicate_member", 400
            ),
            // Path ids: percent-decoded once, then held to a transaction id's shape.
            (Self.get("/v1/transactions/%32000000100000002"), nil, 200),
            (Self.get("/v1/transactions/%2532000000100000002"), "server.invalid_option", 400),
            (Self.get("/v1/transactions/2000000100000002%00"), "server.invalid_option", 400),
            (Self.get("/v1/transactions/" + String(repeating: "9", count: 65)), "server.invalid_option", 400),
        ]
        let responses = try await Self.exchange(
            [Self.verify(account: "alice", receipt: receipt)] + calls.map(\.0), service)
        #expect(responses[0].status == .ok)
        for ((call, code, status), response) in zip(calls, responses.dropFirst()) {
            #expect(Int(response.status.code) == status, "\(call.path) \(call.body?.prefix(60) ?? "")")
            if let code { #expect(try Self.errorCode(response) == code, "\(call.path)") }
        }
        // verifyReceipt refuses a duplicated member too, Apple's way: a body it cannot read is 21000.
        let apple = try await Self.exchange(
            [
                Call(path: "/sandbox/verifyReceipt", body: #"{"receipt-data":"\#(receipt)","receipt-data":"AAAA"}"#),
                Call(
                    path: "/sandbox/verifyReceipt",
                    body: #"{"receipt-data":"\#(receipt)","password":"a","password":"b"}"#),
            ], service)
        for response in apple { #expect(try Support.status(response.body) == 21000) }
    }

    /// A signed transaction whose expiry is written in exponent form: refused (`jws.malformed`), never read as the
    /// leading digits (1 ms after 1970) nor as no expiry at all; nothing is recorded.
    @Test(arguments: Store.allCases)
    func exponentNumbersWhereAppleWritesIntegersAreRefused(store: Store) async throws {
        guard store.isAvailable else { return }
        let place = try await Place(store)
        let service = try Self.service(ledger: try await place.ledger())
        var bodies: [Call] = []
        for expiry in ["1.753033148e12", "1753033148e0", "\"1753033148000\""] {
            let payload = """
                {"transactionId":"2000000100000008","originalTransactionId":"2000000100000008","bundleId":"\(Self.bundle)",\
                "productId":"org.example.receiptforge.monthly","purchaseDate":1750441148000,"expiresDate":\(expiry),\
                "type":"Auto-Renewable Subscription","signedDate":1751000000000,"environment":"Sandbox"}
                """
            let jws = try Self.minter.mint(payloadJSON: Array(payload.utf8), variant: nil)
            bodies.append(Call(path: "/v1/verify", body: Self.json(["signed_transaction": jws])))
        }
        let responses = try await Self.exchange(bodies + [Self.get("/v1/transactions/2000000100000008")], service)
        for response in responses.dropLast() {
            let verdict = try Support.object(response.body)
            #expect(verdict["verdict"] as? String == "invalid")
            #expect((verdict["reasons"] as? [[String: Any]])?.first?["code"] as? String == "jws.malformed")
        }
        #expect(responses.last?.status == .notFound)
    }

    // MARK: - 6. One bad entry never fails another's batch

    /// The valid fixture minted with its pro purchase's transaction id made 8 KB (or any other malformed id): the
    /// purchase cannot be Apple's and is left out, the rest of the receipt is recorded, and a batch of good
    /// verifications sent at the same moment is answered as if the bad ones had never come.
    static func receipt(withTransactionID id: String, originalID: String? = nil) throws -> String {
        let descriptions = Support.fixturesDirectory.appendingPathComponent("descriptions")
        var request = try MintRequest(json: Data(contentsOf: descriptions.appendingPathComponent("valid-sha256.json")))
        var receipt = try #require(request.receipt)
        let index = try #require(receipt.inAppPurchases.firstIndex { $0.transactionID == "2000000100000002" })
        receipt.inAppPurchases[index].transactionID = id
        receipt.inAppPurchases[index].originalTransactionID = originalID ?? id
        request.receipt = receipt
        return Base64.encode(try request.mint(pki: TestPKI(directory: Self.certs)))
    }

    @Test(arguments: Store.allCases)
    func oversizedIdsMixedIntoABatchFailNothingElse(store: Store) async throws {
        guard store.isAvailable else { return }
        let place = try await Place(store)
        let ledger = try await place.ledger()
        let service = try Self.service(ledger: ledger)
        let bad = [
            try Self.receipt(withTransactionID: String(repeating: "7", count: 8192)),
            try Self.receipt(withTransactionID: "2000000100000009", originalID: String(repeating: "8", count: 4096)),
            try Self.receipt(withTransactionID: "2000000100000009 OR 1=1"),
        ]
        let good = try Self.receipt()
        let results = try await service.makeApplication().test(.router) { client in
            try await withThrowingTaskGroup(of: (Int, TestResponse).self) { group in
                for index in 0..<60 {
                    group.addTask {
                        let receipt = index % 5 == 0 ? bad[(index / 5) % bad.count] : good
                        let response = try await client.execute(
                            uri: "/v1/verify", method: .post, headers: [.contentType: "application/json"],
                            body: ByteBuffer(string: Self.json(["receipt_data": receipt, "account": "acct-\(index)"])))
                        return (index, response)
                    }
                }
                var all: [(Int, TestResponse)] = []
                for try await result in group { all.append(result) }
                return all
            }
        }
        #expect(results.count == 60)
        var reportedNew: [String: Int] = [:]
        for (index, response) in results {
            #expect(response.status == .ok, "request \(index) answered \(response.status)")
            let ledgerMember = try Self.ledgerMember(response)
            for id in ledgerMember["new_transaction_ids"] as? [String] ?? [] { reportedNew[id, default: 0] += 1 }
            let listed =
                (ledgerMember["new_transaction_ids"] as? [String] ?? [])
                + (ledgerMember["known_transaction_ids"] as? [String] ?? [])
                + ((ledgerMember["conflicts"] as? [[String: Any]] ?? []).flatMap {
                    $0["transaction_ids"] as? [String] ?? []
                })
            #expect(listed.allSatisfy { LedgerLimits.isIdentifier($0) }, "request \(index)")
        }
        #expect(reportedNew.values.allSatisfy { $0 == 1 })
        #expect(Set(reportedNew.keys) == Set(Self.receiptIDs))
        // The library refuses such an entry on its own, before it can join a batch.
        let oversized = LedgerEntry(
            time: Support.fixedNow, endpoint: "library", receiptSHA256: "ab", verdict: .valid, reason: nil,
            decidedBy: .local, account: nil,
            transactions: [
                LedgerTransaction(
                    transactionID: String(repeating: "1", count: 8192), originalTransactionID: "1", productID: "p",
                    kind: .unknown, bundleID: Self.bundle, environment: .sandbox, source: .receipt,
                    firstSeen: Support.fixedNow, lastSeen: Support.fixedNow)
            ])
        await #expect(throws: LedgerError.self) { try await ledger.record(oversized) }
    }

    /// A V1 notification's unsigned members, however large, take at most 16 KiB of the ledger.
    @Test(arguments: [1, 20_000])
    func v1HintsAreBounded(entries: Int) throws {
        let entry = #"{"transaction_id":"1","original_transaction_id":"1","product_id":"p"}"#
        let body =
            #"{"notification_type":"RENEWAL","unified_receipt":{"latest_receipt":"AAAA","latest_receipt_info":["#
            + Array(repeating: entry, count: entries).joined(separator: ",") + "]}}"
        guard case .version1(let notification) = try NotificationBody(parsing: Array(body.utf8)) else {
            Issue.record("not read as version 1")
            return
        }
        #expect(notification.unverifiedHints.utf8.count <= LedgerLimits.maximumHintsLength)
        let kept = notification.unverifiedHints.contains("latest_receipt_info")
        #expect(kept == (entries == 1), "small hints kept whole, large ones summarized")
        #expect(notification.unverifiedHints.contains("\"omitted_bytes\"") == !kept)
    }

    // MARK: - 7. Refunds follow the latest signed statement, receipts included

    static let minter = JWSMinter(pki: TestPKI(directory: certs))

    /// A StoreKit 2 statement about the receipt's refunded consumable (2000000100000004), signed at `signed`, with or
    /// without a revocation.
    static func statement(signed: Int64, revoked: Bool) throws -> String {
        let revocation = revoked ? #","revocationDate":1748862000000,"revocationReason":0"# : ""
        let payload = """
            {"transactionId":"2000000100000004","originalTransactionId":"2000000100000004","bundleId":"\(bundle)",\
            "productId":"org.example.receiptforge.coins100","purchaseDate":1748000000000,\
            "originalPurchaseDate":1748000000000,"quantity":1,"type":"Consumable","inAppOwnershipType":"PURCHASED",\
            "signedDate":\(signed),"environment":"Sandbox","transactionReason":"PURCHASE"\(revocation)}
            """
        return try minter.mint(payloadJSON: Array(payload.utf8), variant: nil)
    }

    @Test(arguments: Store.allCases)
    func aRefundReversedAfterTheReceiptLiftsTheRefund(store: Store) async throws {
        guard store.isAvailable else { return }
        let place = try await Place(store)
        let service = try Self.service(ledger: try await place.ledger())
        let receipt = try Self.receipt()  // created 2025-06-15T09:30:00Z (1749979800000), shows the refund
        let transaction = "/v1/transactions/2000000100000004"
        let signed = { (jws: String) in Call(path: "/v1/verify", body: Self.json(["signed_transaction": jws])) }
        let responses = try await Self.exchange(
            [
                Self.verify(account: "alice", receipt: receipt), Self.get(transaction),
                // A reversal Apple signed before the receipt was created: the receipt is newer, the refund stays.
                signed(try Self.statement(signed: 1_749_900_000_000, revoked: false)), Self.get(transaction),
                // The reversal signed after it: lifted.
                signed(try Self.statement(signed: 1_750_000_000_000, revoked: false)), Self.get(transaction),
                // The receipt again (older than the reversal): nothing changes.
                Self.verify(account: "alice", receipt: receipt), Self.get(transaction),
                // A refund signed later still: refunded again.
                signed(try Self.statement(signed: 1_750_100_000_000, revoked: true)), Self.get(transaction),
            ], service)
        let cancellations = try [1, 3, 5, 7, 9].map { index in
            try Support.object(responses[index].body)["cancellation_date_ms"] as? String
        }
        #expect(cancellations == ["1748862000000", "1748862000000", nil, nil, "1748862000000"])
        for index in [2, 4, 8] {
            #expect(try Support.object(responses[index].body)["verdict"] as? String == "valid", "statement \(index)")
        }
    }
}
