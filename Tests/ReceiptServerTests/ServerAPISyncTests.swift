import AppleStandIn
import Foundation
import ReceiptForge
import ReceiptIntake
import ReceiptLedger
import ReceiptLedgerStores
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import TestSupport
import Testing

/// History sync through the intake against the stand-in's App Store Server API (issue 26): a three-page history
/// recorded completely and exactly once (also by two replicas on one PostgreSQL database at once), a forged item
/// reported and kept out of the ledger, and a receipt that must verify before Apple is asked anything.
@Suite("server API history sync", .timeLimit(.minutes(2)))
struct ServerAPISyncTests {
    typealias API = ServerAPITestSupport
    static let first: Int64 = 3_000_000_000
    static let ids = (0..<45).map { String(first + Int64($0)) }
    static let now = ReceiptDate(clampingMillisecondsSince1970: API.start.millisecondsSince1970 + 90 * API.day)

    static func call(_ subject: SyncCall.Subject, account: String? = nil) -> SyncCall {
        SyncCall(subject: subject, bundleID: API.bundle, account: account, auditEndpoint: "/v1/sync", now: now)
    }

    static func sandboxCustomer(_ count: Int = 45) -> ServerAPIData {
        ServerAPIData(bundleID: API.bundle, transactions: API.customer(first: first, count: count))
    }

    @Test func aThreePageHistoryIsRecordedCompletelyAndASecondSyncFindsItAllKnown() async throws {
        let standIn = try API.standIn(sandbox: Self.sandboxCustomer())
        let folder = try TemporaryFolder()
        let ledger = try API.sqliteLedger(folder)
        let verifier = try API.verifier()
        let (first, second) = try await standIn.withRunning { addresses in
            let intake = API.intake(
                ledger: ledger, verifier: verifier, serverAPI: try API.client(addresses, verifier: verifier))
            let first = try await intake.sync(Self.call(.transactionID(Self.ids[7])), logger: API.quietLogger)
            let second = try await intake.sync(Self.call(.transactionID(Self.ids[44])), logger: API.quietLogger)
            return (first, second)
        }
        #expect(first.environment == .sandbox)
        #expect(first.synced == 45)
        #expect(first.failed.isEmpty, "\(first.failed)")
        #expect(first.newTransactionIDs.sorted() == Self.ids, "every id reported new exactly once")
        #expect(first.knownTransactionIDs.isEmpty)
        for id in Self.ids {
            let held = try await ledger.transaction(id: id)
            #expect(held?.0.transactionID == id)
            #expect(held?.0.originalTransactionID == Self.ids[0])
            #expect(held?.0.source == .serverAPI)
        }
        #expect(second.synced == 45)
        #expect(second.newTransactionIDs.isEmpty)
        #expect(second.knownTransactionIDs.sorted() == Self.ids)
        // Two syncs of three pages each (20 + 20 + 5) in Sandbox, where the customer is (Production, asked first
        // for a bare transaction id, does not know it).
        #expect(standIn.apiRequests(.sandbox).count == 6)
    }

    @Test(.enabled(if: PostgresTestDatabase.clusterURL != nil, Comment(rawValue: PostgresTestDatabase.skipMessage)))
    func twoReplicasSyncingTheSameCustomerAtOnceReportEachTransactionNewOnce() async throws {
        let database = try await PostgresTestDatabase.create(prefix: "server_api_sync")
        defer { database.drop() }
        let standIn = try API.standIn(sandbox: Self.sandboxCustomer())
        let verifier = try API.verifier()
        guard case .postgres(let location) = try LedgerLocation(parsing: database.url) else {
            Issue.record("not a PostgreSQL URL: \(database.url)")
            return
        }
        // Migrated by the first before the second opens, as replicas starting one after the other do.
        let storeA = try await database.opening {
            try await PostgresLedgerStore(location: location, logger: API.quietLogger)
        }
        let storeB = try await PostgresLedgerStore(location: location, logger: API.quietLogger)
        let (a, b) = try await standIn.withRunning { addresses in
            let intakeA = API.intake(
                ledger: Ledger(store: storeA), verifier: verifier,
                serverAPI: try API.client(addresses, verifier: verifier))
            let intakeB = API.intake(
                ledger: Ledger(store: storeB), verifier: verifier,
                serverAPI: try API.client(addresses, verifier: verifier))
            async let a = intakeA.sync(Self.call(.transactionID(Self.ids[0])), logger: API.quietLogger)
            async let b = intakeB.sync(Self.call(.transactionID(Self.ids[30])), logger: API.quietLogger)
            return try await (a, b)
        }
        await storeA.close()
        await storeB.close()
        for answer in [a, b] {
            #expect(answer.synced == 45)
            #expect(answer.failed.isEmpty)
            #expect(answer.newTransactionIDs.count + answer.knownTransactionIDs.count == 45)
            #expect(Set(answer.newTransactionIDs + answer.knownTransactionIDs) == Set(Self.ids))
        }
        #expect(Set(a.newTransactionIDs).union(b.newTransactionIDs) == Set(Self.ids))
        #expect(Set(a.newTransactionIDs).isDisjoint(with: b.newTransactionIDs), "no id is new on both replicas")
        #expect(a.newTransactionIDs.count + b.newTransactionIDs.count == 45)
        #expect(try await database.run("SELECT count(*) FROM ledger_transactions") == "45")
    }

    @Test func aForgedItemOnPageTwoIsReportedAuditedAndNotRecorded() async throws {
        let standIn = try API.standIn(sandbox: Self.sandboxCustomer())
        // Page 1 as Apple; page 2 with its second JWS (index 21 of the walk) broken.
        standIn.scriptAPI(.sandbox, [.apple, .forgedItem(index: 1)])
        let folder = try TemporaryFolder()
        let ledger = try API.sqliteLedger(folder)
        let verifier = try API.verifier()
        let answer = try await standIn.withRunning { addresses in
            try await API.intake(
                ledger: ledger, verifier: verifier, serverAPI: try API.client(addresses, verifier: verifier)
            ).sync(Self.call(.transactionID(Self.ids[0])), logger: API.quietLogger)
        }
        #expect(answer.synced == 44)
        #expect(answer.failed.map(\.index) == [21])
        #expect(answer.failed.first?.reason == "jws.signature_mismatch")
        #expect(answer.failed.first?.message.isEmpty == false)
        #expect(Set(answer.newTransactionIDs) == Set(Self.ids).subtracting([Self.ids[21]]))
        #expect(try await ledger.transaction(id: Self.ids[21]) == nil, "a forged item is never recorded")
        #expect(try await ledger.transaction(id: Self.ids[20])?.0.transactionID == Self.ids[20])
        #expect(try await ledger.transaction(id: Self.ids[22])?.0.transactionID == Self.ids[22])
        let audit = try await ledger.auditEntries(AuditQuery())
        let refused = audit.filter { $0.verdict == .invalid }
        #expect(refused.count == 1)
        #expect(refused.first?.reason?.description == "jws.signature_mismatch")
        #expect(refused.first?.endpoint == "/v1/sync")
        #expect(refused.first?.newTransactionIDs.isEmpty == true)
        #expect(audit.filter { $0.verdict == .valid }.count == 44, "each recorded item is audited")
    }

    @Test func aTamperedReceiptIsRefusedBeforeAppleIsAsked() async throws {
        let standIn = try API.standIn(sandbox: Self.sandboxCustomer(3))
        let folder = try TemporaryFolder()
        let ledger = try API.sqliteLedger(folder)
        let verifier = try API.verifier()
        let tampered = try ServerTestSupport.fixture("tampered-payload.receipt")
        let refusal = try await standIn.withRunning { addresses in
            let intake = API.intake(
                ledger: ledger, verifier: verifier, serverAPI: try API.client(addresses, verifier: verifier))
            return await API.refusal { () async throws(IntakeError) in
                try await intake.sync(Self.call(.receipt(tampered, isText: false)), logger: API.quietLogger)
            }
        }
        #expect(refusal?.code == .receiptNotVerified)
        #expect(standIn.apiRequests().isEmpty, "Apple is not asked about a receipt that does not verify")
        let audit = try await ledger.auditEntries(AuditQuery())
        #expect(audit.map(\.verdict) == [.invalid], "the refused receipt is audited")
    }

    @Test func aValidReceiptWithoutPurchasesSyncsNothingAndSaysWhy() async throws {
        let standIn = try API.standIn(sandbox: Self.sandboxCustomer(3))
        let folder = try TemporaryFolder()
        let ledger = try API.sqliteLedger(folder)
        let verifier = try API.verifier()
        let empty = try API.receipt([])
        let answer = try await standIn.withRunning { addresses in
            try await API.intake(
                ledger: ledger, verifier: verifier, serverAPI: try API.client(addresses, verifier: verifier)
            ).sync(Self.call(.receipt(empty, isText: false)), logger: API.quietLogger)
        }
        #expect(answer.synced == 0)
        #expect(answer.transactionID == nil)
        #expect(answer.environment == nil)
        #expect(answer.note?.isEmpty == false)
        #expect(answer.newTransactionIDs.isEmpty && answer.knownTransactionIDs.isEmpty && answer.failed.isEmpty)
        #expect(answer.bundleID == API.bundle)
        #expect(standIn.apiRequests().isEmpty)
    }

    @Test func aValidReceiptsPurchaseLeadsToItsHistoryInTheReceiptsEnvironmentOnly() async throws {
        // The receipt is a Sandbox one; the same customer id also exists in Production, which must not be asked.
        let purchase = API.subscription(
            String(Self.first), original: String(Self.first), purchased: "2025-06-01T00:00:00Z",
            expires: "2025-07-01T00:00:00Z")
        let receipt = try API.receipt([purchase])
        let standIn = try API.standIn(
            sandbox: Self.sandboxCustomer(25),
            production: ServerAPIData(
                bundleID: API.bundle, appAppleID: API.appAppleID,
                transactions: API.customer(first: Self.first, count: 2, environment: .production)))
        let folder = try TemporaryFolder()
        let ledger = try API.sqliteLedger(folder)
        let verifier = try API.verifier()
        let answer = try await standIn.withRunning { addresses in
            try await API.intake(
                ledger: ledger, verifier: verifier, serverAPI: try API.client(addresses, verifier: verifier)
            ).sync(Self.call(.receipt(receipt, isText: false), account: "alice"), logger: API.quietLogger)
        }
        #expect(answer.environment == .sandbox)
        #expect(answer.transactionID == String(Self.first))
        #expect(answer.synced == 25)
        #expect(standIn.apiRequests(.production).isEmpty, "the receipt's environment is the only one asked")
        let sandbox = standIn.apiRequests(.sandbox)
        #expect(sandbox.count == 2)
        #expect(sandbox.allSatisfy { $0.path == "/inApps/v2/history/\(Self.first)" })
        #expect(try await ledger.transaction(id: Self.ids[24])?.owner == "alice")
    }
}
