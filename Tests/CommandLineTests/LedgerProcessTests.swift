import Foundation
import TestSupport
import Testing

/// The ledger through real `receipt-server` processes, real stores (a SQLite file; a database of its own on the
/// throw-away PostgreSQL cluster scripts/test starts) and loopback HTTP: two replicas sharing one database, a
/// server killed with SIGKILL under load and restarted, the store going away mid-run. Each checks the ledger's
/// promises from outside: a transaction id is reported new once, ever, and only once it is durable; a purchase
/// has one owner; every answered verification, and nothing else, is in the audit trail.
@Suite(
    .enabled(
        if: ["receipt-server", "mint-receipt"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: SharedTestData.executable($0).path)
        }, "receipt-server or mint-receipt is not built: ledger process tests skipped"),
    .serialized, .timeLimit(.minutes(2)))
struct LedgerProcessTests {
    /// The test PKI's root: the minted receipts verify under it.
    static let testRoot = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path

    // MARK: - Replicas

    /// Two replicas on one database, every receipt sent to both at once under two accounts: the database, not
    /// either replica, decides what is new and who owns what.
    @Test(.enabled(if: PostgresTestDatabase.clusterURL != nil, Comment(rawValue: PostgresTestDatabase.skipMessage)))
    func replicasOnOneDatabaseReportEachTransactionNewOnce() async throws {
        let database = try await PostgresTestDatabase.create(prefix: "ledger_replicas")
        defer { database.drop() }
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let receipts = try await ReceiptCorpus.mint(Self.subscriptionCorpus(count: 24), in: folder.url)
        let replicas = [
            try await Self.server(ledger: database.url, in: folder, name: "replica-1"),
            try await Self.server(ledger: database.url, in: folder, name: "replica-2"),
        ]
        defer { replicas.forEach { $0.kill() } }
        let ports = replicas.map(\.port)
        let accounts = ["acct-a", "acct-b"]

        // Each receipt to replica 1 as acct-a and to replica 2 as acct-b, all in flight together, shuffled.
        var generator = SplitMix64(seed: 13)
        let calls = receipts.indices.flatMap { index in [(index, 0), (index, 1)] }.shuffled(using: &generator)
        let client = LoopbackHTTPClient()
        let answers = try await Self.concurrently(calls.count) { call in
            let (index, replica) = calls[call]
            return try await Self.verify(receipts[index], account: accounts[replica], port: ports[replica], client)
        }

        for ((index, replica), answer) in zip(calls, answers) {
            #expect(answer.status == 200 && answer.verdict == "valid", "receipt \(index) on replica \(replica + 1)")
            #expect(answer.isRecorded)
            #expect(Set(answer.newIDs).isDisjoint(with: answer.knownIDs))
            // Every id of the receipt is new, known, or (not yet recorded) under another account's purchase.
            let listed = answer.newIDs + answer.knownIDs + answer.conflicts.flatMap(\.ids)
            #expect(Set(listed) == Set(receipts[index].transactionIDs))
        }
        let minted = Set(receipts.flatMap(\.transactionIDs))
        let reportedNew = Self.counts(answers.flatMap(\.newIDs))
        #expect(minted.symmetricDifference(reportedNew.keys).sorted().prefix(10) == [], "minted ≠ reported new")
        #expect(Self.repeated(reportedNew).isEmpty, "reported new more than once")

        // One owner per original transaction id: the account whose answers never conflict on it; every answer
        // of the other account names that owner and exactly the receipt's transactions under it.
        for original in Set(receipts.flatMap(\.originalTransactionIDs)).sorted() {
            var unconflicted = Set<String>()
            for ((index, replica), answer) in zip(calls, answers)
            where receipts[index].originalTransactionIDs.contains(original) {
                let conflict = answer.conflicts.first { $0.original == original }
                if conflict == nil { unconflicted.insert(accounts[replica]) }
            }
            #expect(unconflicted.count == 1, "original \(original): accounts without a conflict \(unconflicted)")
            guard let owner = unconflicted.first else { continue }
            for ((index, replica), answer) in zip(calls, answers)
            where receipts[index].originalTransactionIDs.contains(original) && accounts[replica] != owner {
                let conflict = answer.conflicts.first { $0.original == original }
                let under = receipts[index].purchases.filter { $0.originalTransactionID == original }
                #expect(conflict?.owner == owner, "original \(original), receipt \(index)")
                #expect(Set(conflict?.ids ?? []) == Set(under.map(\.transactionID)), "original \(original)")
            }
            for port in ports {
                let record = try await client.get(port: port, "/v1/transactions/\(original)")
                #expect(record.status == 200)
                #expect(try record.json()["account"] as? String == owner, "original \(original) on port \(port)")
            }
        }

        let audit = try await Self.audit(database.url)
        #expect(audit.count == calls.count)
        #expect(audit.allSatisfy { $0["endpoint"] as? String == "/v1/verify" && $0["verdict"] as? String == "valid" })
        #expect(
            Self.counts(audit.map(Self.auditKey))
                == Self.counts(zip(calls, answers).map { Self.answerKey(accounts[$0.1], $1) }))
    }

    // MARK: - New to the owner

    @Test func renewalsSeenWithoutAnAccountStayNewToTheirOwnerOnSQLite() async throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let ledger = "sqlite:" + folder.url.appendingPathComponent("ledger.sqlite").path
        let server = try await Self.server(ledger: ledger, in: folder, name: "only")
        defer { server.kill() }
        try await Self.accountlessSightingsThenOwners(ports: [server.port, server.port], in: folder)
    }

    @Test(.enabled(if: PostgresTestDatabase.clusterURL != nil, Comment(rawValue: PostgresTestDatabase.skipMessage)))
    func renewalsSeenWithoutAnAccountStayNewToTheirOwnerAcrossReplicas() async throws {
        let database = try await PostgresTestDatabase.create(prefix: "ledger_owner_new")
        defer { database.drop() }
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let replicas = [
            try await Self.server(ledger: database.url, in: folder, name: "replica-1"),
            try await Self.server(ledger: database.url, in: folder, name: "replica-2"),
        ]
        defer { replicas.forEach { $0.kill() } }
        try await Self.accountlessSightingsThenOwners(ports: replicas.map(\.port), in: folder)
    }

    /// Class 2 of issue 24, as an attacker (or simply Apple's push and an account-less client) would hit it: each
    /// owner binds a subscription; its renewal is then seen first by account-less `/verifyReceipt` calls, sent to
    /// every replica at once, and by another account; only then do the owners verify, twice each, on every replica
    /// at once. The renewal must reach each owner as new exactly once, and nobody else's sighting may use it up.
    static func accountlessSightingsThenOwners(ports: [Int], in folder: TemporaryFolder) async throws {
        let count = 8
        let family: @Sendable (Int) -> String = { String(7_100_000_000_000_000 + $0 * 100) }
        let renewal: @Sendable (Int) -> String = { String(7_100_000_000_000_000 + $0 * 100 + 1) }
        let early = try await ReceiptCorpus.mint(
            (0..<count).map { [.renewal(family($0), of: family($0), period: 0)] }, in: folder.url)
        let later = try await ReceiptCorpus.mint(
            (0..<count).map {
                [.renewal(family($0), of: family($0), period: 0), .renewal(renewal($0), of: family($0), period: 1)]
            }, in: folder.url)
        let owner: @Sendable (Int) -> String = { "owner-\($0)" }
        let client = LoopbackHTTPClient()

        // 1. Each owner binds its subscription.
        for index in 0..<count {
            let bound = try await verify(early[index], account: owner(index), port: ports[0], client)
            #expect(bound.newIDs == [family(index)], "owner \(index) binds")
        }
        // 2. The renewal, first seen without an account (every replica at once) and by another account.
        let sightings = try await concurrently(count * ports.count) { call in
            let index = call % count
            let body = try JSONSerialization.data(withJSONObject: ["receipt-data": later[index].base64])
            return try await client.post(port: ports[call / count], "/sandbox/verifyReceipt", json: body)
        }
        #expect(sightings.allSatisfy { $0.status == 200 })
        let accountless = counts(
            sightings.flatMap {
                ($0.headers["x-receipt-new-transactions"] ?? "").split(separator: ",").map(String.init)
            })
        // Callers naming no account are an audience of their own: each id is new to them once, whoever else saw it.
        #expect(Set(accountless.keys) == Set(later.flatMap(\.transactionIDs)))
        #expect(repeated(accountless).isEmpty, "new twice to callers naming no account")
        for index in 0..<count {
            let stranger = try await verify(later[index], account: "mallory", port: ports[index % ports.count], client)
            #expect(stranger.newIDs.isEmpty, "another account is told nothing new")
            #expect(stranger.conflicts.map(\.owner) == [owner(index)])
        }
        // 3. The owners, twice each, on every replica at once.
        let calls = (0..<count).flatMap { index in (0..<(2 * ports.count)).map { (index, $0 % ports.count) } }
        let answers = try await concurrently(calls.count) { call in
            let (index, replica) = calls[call]
            return try await verify(later[index], account: owner(index), port: ports[replica], client)
        }
        #expect(answers.allSatisfy { $0.status == 200 && $0.conflicts.isEmpty })
        let toOwners = counts(answers.flatMap(\.newIDs))
        #expect(toOwners == Dictionary(uniqueKeysWithValues: (0..<count).map { (renewal($0), 1) }))
    }

    // MARK: - kill -9

    @Test func aKilledSQLiteServerLosesNothingItReported() async throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        try await killUnderLoadThenReplay(
            ledger: "sqlite:" + folder.url.appendingPathComponent("ledger.sqlite").path, in: folder)
    }

    @Test(.enabled(if: PostgresTestDatabase.clusterURL != nil, Comment(rawValue: PostgresTestDatabase.skipMessage)))
    func aKilledPostgresServerLosesNothingItReported() async throws {
        let database = try await PostgresTestDatabase.create(prefix: "ledger_kill")
        defer { database.drop() }
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        try await killUnderLoadThenReplay(ledger: database.url, in: folder)
    }

    /// Distinct receipts sent 2 ms apart, so that many are in flight and more are still to come when the first is
    /// answered; SIGKILL then (sent all at once, a fast server could answer them all in one group commit before the
    /// signal lands, and the test would prove nothing about the kill); a new server on the same ledger then gets
    /// every receipt again.
    /// What the killed server reported new must be there, and known; nothing is new twice; every receipt ends up
    /// recorded.
    func killUnderLoadThenReplay(ledger: String, in folder: TemporaryFolder) async throws {
        let receipts = try await ReceiptCorpus.mint(
            (0..<160).map { index in
                (0..<3).map { slot in .consumable(String(4_000_000_000_000_000 + index * 10 + slot)) }
            }, in: folder.url)
        let client = LoopbackHTTPClient()

        let killed = try await Self.server(ledger: ledger, in: folder, name: "killed")
        defer { killed.kill() }
        let port = killed.port
        var beforeKill = [Verification?](repeating: nil, count: receipts.count)
        try await withThrowingTaskGroup(of: (Int, Verification?).self) { group in
            for (index, receipt) in receipts.enumerated() {
                group.addTask {
                    // Pacing the load, not waiting for an outcome.
                    try await Task.sleep(for: .milliseconds(2 * index))
                    // A request the kill cut off fails in transport: no answer, nothing claimed.
                    let answer = try? await client.post(
                        port: port, "/v1/verify", json: Self.body(receipt, Self.account(index)))
                    return (index, try answer.map(Verification.init))
                }
            }
            var answered = 0
            for try await (index, verification) in group {
                beforeKill[index] = verification
                answered += 1
                if answered == 1 { killed.kill() }
            }
        }
        #expect(!killed.isRunning)
        let answeredBefore = beforeKill.compactMap { $0 }
        #expect(answeredBefore.count < receipts.count, "every request was answered before the kill")
        for answer in answeredBefore {
            #expect(answer.status == 200 && answer.verdict == "valid" && answer.isRecorded)
            #expect(answer.conflicts.isEmpty)
        }
        let reportedBefore = Set(answeredBefore.flatMap(\.newIDs))
        #expect(reportedBefore.count == answeredBefore.flatMap(\.newIDs).count, "an id reported new twice")

        let restarted = try await Self.server(ledger: ledger, in: folder, name: "restarted")
        defer { restarted.kill() }
        let restartedPort = restarted.port
        let replay = try await Self.concurrently(receipts.count) { index in
            try await Self.verify(receipts[index], account: Self.account(index), port: restartedPort, client)
        }
        for (index, answer) in replay.enumerated() {
            #expect(answer.status == 200 && answer.verdict == "valid" && answer.isRecorded, "receipt \(index)")
            // Every id of the receipt is new, known, or (not yet recorded) under another account's purchase.
            let listed = answer.newIDs + answer.knownIDs + answer.conflicts.flatMap(\.ids)
            #expect(Set(listed) == Set(receipts[index].transactionIDs))
            #expect(answer.conflicts.isEmpty)
        }
        let knownAfter = Set(replay.flatMap(\.knownIDs))
        let missing = reportedBefore.subtracting(knownAfter)
        #expect(missing.isEmpty, "reported new before the kill, not known after it: \(missing.sorted())")
        let reportedNew = Self.counts(answeredBefore.flatMap(\.newIDs) + replay.flatMap(\.newIDs))
        #expect(Self.repeated(reportedNew).isEmpty, "reported new twice across the restart")

        // Every minted transaction is recorded now, owned by the account that sent it.
        let minted = receipts.enumerated().flatMap { index, receipt in receipt.transactionIDs.map { ($0, index) } }
        let records = try await Self.concurrently(minted.count) { item in
            try await client.get(port: restartedPort, "/v1/transactions/\(minted[item].0)")
        }
        for ((id, index), record) in zip(minted, records) {
            #expect(record.status == 200, "transaction \(id)")
            let owner = record.status == 200 ? try record.json()["account"] as? String : nil
            #expect(record.status != 200 || owner == Self.account(index), "transaction \(id)")
        }

        // The trail: each transaction new in exactly one entry; one entry per answer after the restart, and per
        // committed verification before it (answered or cut off after its commit).
        let audit = try await Self.audit(ledger)
        let auditedNew = Self.counts(audit.flatMap { $0["new_transaction_ids"] as? [String] ?? [] })
        #expect(
            Set(minted.map(\.0)).symmetricDifference(auditedNew.keys).sorted().prefix(10) == [],
            "minted ≠ new in the audit trail")
        #expect(Self.repeated(auditedNew).isEmpty, "a transaction new in several audit entries")
        #expect((answeredBefore.count + replay.count...2 * receipts.count).contains(audit.count))
    }

    // MARK: - The store going away

    /// Another process holds the SQLite database's write lock longer than the server's busy timeout (shortened
    /// to 1 s here by RECEIPT_SERVER_LEDGER_BUSY_TIMEOUT); reads go on (WAL), writes fail until it lets go.
    @Test(.enabled(if: SQLiteLockHolder.python != nil, "python3 is not installed: the SQLite lock check is skipped"))
    func aLockedSQLiteLedgerAnswers503UntilItIsReleased() async throws {
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        let path = folder.url.appendingPathComponent("ledger.sqlite").path
        var holder: SQLiteLockHolder?
        defer { try? holder?.release() }
        try await storeGoesAwayAndComesBack(
            ledger: "sqlite:" + path, environment: ["RECEIPT_SERVER_LEDGER_BUSY_TIMEOUT": "1"], in: folder,
            readStatusWhileAway: 200,
            cutOff: { holder = try SQLiteLockHolder(path: path) },
            restore: { try holder?.release() })
    }

    /// The database refuses connections and its sessions are ended, then comes back.
    @Test(.enabled(if: PostgresTestDatabase.clusterURL != nil, Comment(rawValue: PostgresTestDatabase.skipMessage)))
    func aPostgresLedgerThatGoesAwayAnswers503UntilItIsBack() async throws {
        let database = try await PostgresTestDatabase.create(prefix: "ledger_away")
        defer { database.drop() }
        let folder = try TemporaryFolder()
        defer { withExtendedLifetime(folder) {} }
        // Each PostgreSQL call gives up after 5 s here (RECEIPT_SERVER_LEDGER_DEADLINE), not the default 10: a call
        // in the outage waits that long plus the 2 s grace, and one before or after it has that long on a slow host.
        try await storeGoesAwayAndComesBack(
            ledger: database.url, environment: ["RECEIPT_SERVER_LEDGER_DEADLINE": "5"], in: folder,
            readStatusWhileAway: 503,
            cutOff: {
                try await database.cutOff()
                // pg_terminate_backend only signals: wait until the server's sessions are really gone.
                let deadline = ContinuousClock.now + .seconds(60)
                while try await database.run(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database.name)'", onCluster: true)
                    != "0"
                {
                    guard ContinuousClock.now < deadline else { throw SessionsRemain(database: database.name) }
                    try await Task.sleep(for: .milliseconds(20))
                }
            },
            restore: { try await database.restore() })
    }

    /// Receipts before the outage are recorded; during it every verification is 503 `ledger.unavailable` and
    /// reports nothing; after it, some of the refused receipts are sent again. Then: everything reported new is
    /// there and was reported once; the refused receipts not sent again left nothing; the audit trail holds
    /// exactly the answered verifications.
    func storeGoesAwayAndComesBack(
        ledger: String, environment: [String: String] = [:], in folder: TemporaryFolder, readStatusWhileAway: Int,
        cutOff: () async throws -> Void, restore: () async throws -> Void
    ) async throws {
        let receipts = try await ReceiptCorpus.mint(
            (0..<24).map { index in
                (0..<3).map { slot in .consumable(String(5_000_000_000_000_000 + index * 10 + slot)) }
            }, in: folder.url)
        let account = "acct-outage"
        let client = LoopbackHTTPClient()
        let server = try await Self.server(ledger: ledger, environment: environment, in: folder, name: "outage")
        defer { server.kill() }
        let port = server.port
        var answered: [(receipt: Int, answer: Verification)] = []
        func send(_ indices: [Int]) async throws -> [Verification] {
            try await Self.concurrently(indices.count) { item in
                try await Self.verify(receipts[indices[item]], account: account, port: port, client)
            }
        }

        let before = Array(0..<6)
        for (index, answer) in zip(before, try await send(before)) {
            #expect(answer.status == 200 && answer.verdict == "valid", "receipt \(index) before the outage")
            #expect(answer.newIDs == receipts[index].transactionIDs)
            answered.append((index, answer))
        }

        try await cutOff()
        let refused = Array(6..<14)
        async let read = client.get(port: port, "/v1/transactions/\(receipts[0].transactionIDs[0])")
        for (index, answer) in zip(refused, try await send(refused)) {
            #expect(answer.status == 503 && answer.errorCode == "ledger.unavailable", "receipt \(index) in the outage")
            #expect(answer.newIDs.isEmpty && !answer.isRecorded)
            if answer.status == 200 { answered.append((index, answer)) }
        }
        let readAnswer = try await read
        #expect(readAnswer.status == readStatusWhileAway)
        if readAnswer.status == 503 {
            #expect(try Verification(readAnswer).errorCode == "ledger.unavailable")
        }

        try await restore()
        // The server reconnects on its own; until it has, a verification is still refused the same way.
        let probe = 14
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let answer = try await Self.verify(receipts[probe], account: account, port: port, client)
            if answer.status == 200 {
                answered.append((probe, answer))
                break
            }
            #expect(answer.status == 503 && answer.errorCode == "ledger.unavailable")
            guard ContinuousClock.now < deadline else {
                Issue.record("the ledger did not come back within 30 s:\n\(server.log.suffix(2_000))")
                return
            }
            try await Task.sleep(for: .milliseconds(100))  // paces retries; nothing is asserted on time
        }
        let sentAgain = Array(refused.prefix(4))
        let after = sentAgain + Array(15..<24)
        for (index, answer) in zip(after, try await send(after)) {
            #expect(answer.status == 200 && answer.verdict == "valid", "receipt \(index) after the outage")
            answered.append((index, answer))
        }

        let reportedNew = Self.counts(answered.flatMap(\.answer.newIDs))
        #expect(Self.repeated(reportedNew).isEmpty, "reported new more than once")
        for index in before + [probe] + after {
            for id in receipts[index].transactionIDs {
                #expect(reportedNew[id] == 1, "receipt \(index): \(id) was not reported new once")
                #expect(try await client.get(port: port, "/v1/transactions/\(id)").status == 200, "\(id)")
            }
        }
        for index in refused.dropFirst(sentAgain.count) {
            for id in receipts[index].transactionIDs {
                #expect(reportedNew[id] == nil)
                #expect(try await client.get(port: port, "/v1/transactions/\(id)").status == 404, "\(id) was written")
            }
        }
        let audit = try await Self.audit(ledger)
        #expect(audit.count == answered.count)
        #expect(
            Self.counts(audit.map(Self.auditKey)) == Self.counts(answered.map { Self.answerKey(account, $0.answer) }))
    }

    // MARK: - Helpers

    /// The server's sessions outlived `pg_terminate_backend` by 60 s.
    struct SessionsRemain: Error, CustomStringConvertible {
        let database: String
        var description: String { "sessions on \(database) remain 60 s after pg_terminate_backend" }
    }

    /// What `/v1/verify` answered, as far as the ledger goes.
    struct Verification: Sendable {
        struct Conflict: Sendable, Hashable {
            let original: String
            let owner: String
            let ids: [String]
        }

        let status: Int
        let verdict: String?
        let errorCode: String?
        /// `true` when the answer has a `ledger` member.
        let isRecorded: Bool
        let newIDs: [String]
        let knownIDs: [String]
        let conflicts: [Conflict]

        init(_ answer: LoopbackHTTPClient.Answer) throws {
            status = answer.status
            let json = try answer.json()
            verdict = json["verdict"] as? String
            errorCode = (json["error"] as? [String: Any])?["code"] as? String
            let ledger = json["ledger"] as? [String: Any]
            isRecorded = ledger != nil
            newIDs = ledger?["new_transaction_ids"] as? [String] ?? []
            knownIDs = ledger?["known_transaction_ids"] as? [String] ?? []
            conflicts = (ledger?["conflicts"] as? [[String: Any]] ?? []).map {
                Conflict(
                    original: $0["original_transaction_id"] as? String ?? "", owner: $0["account"] as? String ?? "",
                    ids: $0["transaction_ids"] as? [String] ?? [])
            }
        }
    }

    /// The account the kill test sends receipt `index` as.
    static func account(_ index: Int) -> String { "acct-\(index % 8)" }

    /// `{"receipt_data": …, "account": …}`.
    static func body(_ receipt: ReceiptCorpus.Receipt, _ account: String) throws -> Data {
        try JSONSerialization.data(withJSONObject: ["receipt_data": receipt.base64, "account": account])
    }

    static func verify(
        _ receipt: ReceiptCorpus.Receipt, account: String, port: Int, _ client: LoopbackHTTPClient
    ) async throws -> Verification {
        try Verification(try await client.post(port: port, "/v1/verify", json: body(receipt, account)))
    }

    /// The app of every receipt ``ReceiptCorpus`` mints.
    static let bundleID = "org.example.receiptforge.sample"

    /// A server on `ledger` trusting the test root, for the minted receipts' app.
    static func server(
        ledger: String, environment: [String: String] = [:], in folder: TemporaryFolder, name: String
    ) async throws -> ReceiptServerProcess {
        try await ReceiptServerProcess(
            ["--ledger", ledger, "--root", testRoot, "--bundle-id", bundleID], environment: environment, in: folder.url,
            name: name)
    }

    /// `body(0) … body(count - 1)`, all at once; the results in that order.
    static func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> T)
        async throws -> [T]
    {
        try await withThrowingTaskGroup(of: (Int, T).self) { group in
            for index in 0..<count { group.addTask { (index, try await body(index)) } }
            var results = [T?](repeating: nil, count: count)
            for try await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
    }

    /// `receipt-server ledger audit --ledger ledger`, one object per line.
    static func audit(_ ledger: String) async throws -> [[String: Any]] {
        let outcome = try await CommandRunner("receipt-server").run(["ledger", "audit", "--ledger", ledger])
        #expect(outcome.status == 0, "ledger audit: \(outcome.standardError)")
        return try outcome.jsonLines()
    }

    /// How often each value occurs.
    static func counts<S: Sequence>(_ values: S) -> [S.Element: Int] where S.Element: Hashable {
        values.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// The values counted more than once, sorted (the first few are enough to show in a failure).
    static func repeated(_ counts: [String: Int]) -> [String] {
        Array(counts.filter { $0.value > 1 }.keys.sorted().prefix(10))
    }

    /// An audit entry's account, new transaction ids and conflicting original ids, to compare with an answer's.
    static func auditKey(_ entry: [String: Any]) -> String {
        let conflicts = (entry["conflicts"] as? [[String: Any]] ?? []).compactMap {
            $0["original_transaction_id"] as? String
        }
        return key(
            entry["account"] as? String ?? "-", entry["new_transaction_ids"] as? [String] ?? [], conflicts)
    }

    static func answerKey(_ account: String, _ answer: Verification) -> String {
        key(account, answer.newIDs, answer.conflicts.map(\.original))
    }

    private static func key(_ account: String, _ new: [String], _ conflicts: [String]) -> String {
        "\(account) new \(new.sorted().joined(separator: ",")) conflicts \(conflicts.sorted().joined(separator: ","))"
    }

    /// `count` receipts, each with two consumables of its own and the renewals so far of one of four
    /// subscriptions: receipt `i` carries renewals 0…i/4 of subscription i % 4, so a subscription's transactions
    /// recur in several receipts, under one original transaction id.
    static func subscriptionCorpus(count: Int) -> [[ReceiptCorpus.Purchase]] {
        (0..<count).map { index in
            let consumables = (0..<2).map { slot in
                ReceiptCorpus.Purchase.consumable(String(6_000_000_000_000_000 + index * 10 + slot))
            }
            let family = 6_100_000_000_000_000 + (index % 4) * 100
            let renewals = (0...(index / 4)).map { period in
                ReceiptCorpus.Purchase.renewal(String(family + period), of: String(family), period: period)
            }
            return consumables + renewals
        }
    }
}
