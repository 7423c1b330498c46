import Foundation
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import TestSupport
import Testing

@testable import ReceiptIntake

/// What reaches the ledger from outside: `--ledger` values, the product catalogue, and verifications.
@Suite struct LedgerInputTests {
    @Test func locationsParse() throws {
        #expect(try LedgerLocation(parsing: "none") == .none)
        #expect(try LedgerLocation(parsing: "sqlite:/var/lib/ledger.sqlite") == .sqlite(path: "/var/lib/ledger.sqlite"))
        #expect(try LedgerLocation(parsing: "data/ledger.sqlite") == .sqlite(path: "data/ledger.sqlite"))
        let server = try LedgerLocation(parsing: "postgres://app:p%40ss@db.internal:6543/ledger?sslmode=require")
        #expect(
            server
                == .postgres(
                    .init(
                        user: "app", password: "p@ss", host: "db.internal", port: 6543, database: "ledger",
                        requiresTLS: true)))
        #expect(server.description == "postgres://app@db.internal:6543/ledger?sslmode=require", "no password shown")
        let separate = try LedgerLocation(parsing: "postgresql://app:url@[::1]/ledger", password: "env")
        #expect(separate == .postgres(.init(user: "app", password: "env", host: "::1", port: 5432, database: "ledger")))
    }

    @Test(arguments: [
        "", "sqlite:", "mysql://a@b/c", "postgres://host/db", "postgres://u@host:0/db", "postgres://u@host:99999/db",
        "postgres://u@host/", "postgres://u:%zz@host/db", "postgres://u@host/db?sslmode=allow", "ledger.db",
    ])
    func badLocationsAreRefused(text: String) {
        #expect(throws: LedgerError(.invalidLocation, "")) { try LedgerLocation(parsing: text) }
    }

    @Test func theCatalogueWinsOverTheReceipt() throws {
        let catalogue = try ProductCatalogue(json: Array(#"{"a": "consumable", "b": "auto_renewable"}"#.utf8))
        #expect(catalogue.kind(of: "a", reported: .nonConsumable) == .consumable)
        #expect(catalogue.kind(of: "b", reported: .unknown) == .autoRenewable)
        #expect(catalogue.kind(of: "c", reported: .nonRenewing) == .nonRenewing)
    }

    @Test(arguments: [
        "", "[]", #"{"a": "unknown"}"#, #"{"a": "gift"}"#, #"{"a": 1}"#, #"{"a": "consumable", "a": "consumable"}"#,
        #"{"a": {"b": "c"}}"#, #"{"a": "consumable""#,
    ])
    func badCataloguesAreRefused(text: String) {
        #expect(throws: LedgerError(.invalidCatalogue, "")) { try ProductCatalogue(json: Array(text.utf8)) }
    }

    static func verifier() throws -> ReceiptVerifier {
        var anchors = TrustAnchors()
        try anchors.addRoots(fromPath: SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path)
        return ReceiptVerifier(configuration: .init(trustAnchors: anchors))
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try SharedTestData.bytes(at: SharedTestData.packageRoot.appendingPathComponent("fixtures/\(name)"))
    }

    /// A valid receipt's purchases become transactions, with the catalogue's kinds; the hash is of the decoded
    /// bytes, however they were wrapped.
    @Test func aValidReceiptsPurchasesAreItsTransactions() throws {
        let bytes = try Self.fixture("valid-sha256.receipt")
        let verdict = try Self.verifier().verify(bytes)
        let catalogue = ProductCatalogue(kinds: ["org.example.receiptforge.pro": .nonRenewing])
        let now = ReceiptDate(clampingMillisecondsSince1970: 1_800_000_000_000)
        let entry = try LedgerEntry(
            verification: .local(verdict), received: bytes[...], endpoint: "/v1/verify", account: "alice", time: now,
            catalogue: catalogue, onConflict: .report)
        #expect(entry.verdict == .valid)
        #expect(
            entry.transactions.map(\.transactionID)
                == ["2000000100000002", "2000000100000001", "2000000100000004", "2000000100000003"])
        #expect(entry.transactions.first?.kind == .nonRenewing)
        #expect(
            entry.transactions.allSatisfy { $0.bundleID == "org.example.receiptforge.sample" && $0.firstSeen == now })
        #expect(entry.transactions.allSatisfy { $0.environment == .sandbox && $0.source == .receipt })
        let base64 = Array(("\"" + Data(bytes).base64EncodedString() + "\"\n").utf8)
        #expect(try LedgerEntry.sha256(ofDecoded: base64) == entry.receiptSHA256)
        #expect(entry.receiptSHA256.count == 64)
    }

    /// A receipt's transactions made only when the ledger needs them (`DeferredTransactions`) are exactly those the
    /// entry would get at once, and their receipt key names what makes them: the receipt's digest, the catalogue
    /// (however its kinds were listed) and the account; another catalogue or account gives another key. A verdict
    /// that is not valid has none.
    @Test func deferredTransactionsAreTheEntrysOwnAndTheirKeyNamesWhatMakesThem() throws {
        let bytes = try Self.fixture("valid-sha256.receipt")
        let verdict = try Self.verifier().verify(bytes)
        let now = ReceiptDate(clampingMillisecondsSince1970: 1_800_000_000_000)
        let catalogue = try ProductCatalogue(
            json: Array(#"{"org.example.receiptforge.pro": "non_renewing", "other": "consumable"}"#.utf8))
        let entry = try LedgerEntry(
            verification: .local(verdict), received: bytes[...], endpoint: "/v1/verify", account: "alice", time: now,
            catalogue: catalogue, onConflict: .report)
        func deferred(_ catalogue: ProductCatalogue, account: String?, verdict: Verdict = verdict)
            -> DeferredTransactions?
        {
            var bare = entry
            bare.transactions = []
            bare.account = account
            return DeferredTransactions(
                verification: .local(verdict), entry: bare, ledger: Ledger(store: FailingStore(), catalogue: catalogue),
                recorder: TransactionRecorder(time: now, catalogue: catalogue))
        }
        let made = try #require(deferred(catalogue, account: "alice"))
        #expect(made.derive() == entry.transactions && !entry.transactions.isEmpty)
        #expect(made.receiptKey.hasPrefix(entry.receiptSHA256 + ":d"))
        let sameKinds = ProductCatalogue(kinds: ["other": .consumable, "org.example.receiptforge.pro": .nonRenewing])
        #expect(deferred(sameKinds, account: "alice")?.receiptKey == made.receiptKey)
        #expect(deferred(ProductCatalogue(), account: "alice")?.receiptKey != made.receiptKey)
        #expect(deferred(catalogue, account: "bob")?.receiptKey != made.receiptKey)
        #expect(deferred(catalogue, account: nil)?.receiptKey != made.receiptKey)
        let tampered = try Self.verifier().verify(try Self.fixture("tampered-payload.receipt"))
        #expect(deferred(catalogue, account: "alice", verdict: tampered) == nil)
    }

    @Test func aTamperedReceiptHasNoTransactions() throws {
        let bytes = try Self.fixture("tampered-payload.receipt")
        let verdict = try Self.verifier().verify(bytes)
        let entry = try LedgerEntry(
            verification: .local(verdict), received: bytes[...], endpoint: "/v1/verify", account: "alice",
            time: ReceiptDate(clampingMillisecondsSince1970: 0), catalogue: ProductCatalogue(), onConflict: .report)
        #expect(entry.verdict == .invalid)
        #expect(entry.transactions.isEmpty)
        #expect(entry.reason?.description == "signature.mismatch")
    }

    @Test(arguments: ["", String(repeating: "a", count: 257), "a\u{0}b"])
    func accountsOutsideTheContractAreRefused(account: String) {
        #expect(!LedgerEntry.isValidAccount(account))
    }

    /// A failed batch fails every verification in it; nothing is reported new.
    @Test func aFailingStoreReportsNothing() async throws {
        let ledger = Ledger(store: FailingStore())
        await #expect(throws: LedgerError(.unavailable, "")) {
            try await ledger.record(
                LedgerEntry(
                    time: ReceiptDate(clampingMillisecondsSince1970: 0), endpoint: "e", receiptSHA256: "",
                    verdict: .valid,
                    reason: nil, decidedBy: .local, account: nil, transactions: []))
        }
    }

    struct FailingStore: LedgerStore {
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
