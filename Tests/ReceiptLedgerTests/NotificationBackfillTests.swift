import Foundation
import GRDB
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

@testable import ReceiptIntake
@testable import ReceiptLedger
@testable import ReceiptLedgerStores

/// Where a backfill of missed App Store Server Notifications starts: the latest signed date of the V2
/// notifications the ledger holds about one app in one environment (schema version 4), against both stores, from a
/// fresh ledger and from one made with the version-3 schema.
@Suite struct NotificationBackfillTests {
    typealias Kind = LedgerStoreTests.Kind

    static let app = "org.example.app"
    static let otherApp = "org.example.other"

    /// An entry recording one notification about `app` in `environment`, signed at `time(signed)`.
    static func notification(
        _ id: String, app: String? = app, environment: ReceiptEnvironment? = .production, signed: Int64?,
        version: String = "2"
    ) -> LedgerEntry {
        var entry = LedgerStoreTests.entry([], account: nil, at: LedgerStoreTests.time(9_000))
        entry.endpoint = "/v1/notifications/appstore"
        entry.notification = LedgerNotification(
            id: id, version: version, notificationType: "DID_RENEW", signedDate: signed.map(LedgerStoreTests.time),
            received: LedgerStoreTests.time(9_000), bundleID: app, environment: environment)
        return entry
    }

    static func latest(_ ledger: Ledger, _ app: String, _ environment: ReceiptEnvironment) async throws -> Int64? {
        let date = try await ledger.latestNotificationSignedDate(bundleID: app, environment: environment)
        return date.map { $0.millisecondsSince1970 - LedgerStoreTests.time(0).millisecondsSince1970 }
    }

    /// Two apps in two environments, each read on its own; V1 notifications, V2 ones without a signed date or
    /// naming no app, and other apps' never count.
    @Test(arguments: Kind.allCases)
    func eachAppAndEnvironmentHasItsOwnLatest(kind: Kind) async throws {
        guard LedgerStoreTests.available(kind) else { return }
        let place = try await LedgerStoreTests.Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        let entries = [
            Self.notification("a-prod-1", environment: .production, signed: 1_000),
            Self.notification("a-prod-2", environment: .production, signed: 3_000),
            Self.notification("a-sandbox-1", environment: .sandbox, signed: 2_000),
            Self.notification("b-prod-1", app: Self.otherApp, environment: .production, signed: 4_000),
            Self.notification("b-sandbox-1", app: Self.otherApp, environment: .sandbox, signed: 500),
            Self.notification("b-sandbox-2", app: Self.otherApp, environment: .sandbox, signed: 700),
            // None of these may move a latest date. (The intake never gives a V1 notification an app: this one has
            // one so that the read's own condition on the version is held to account.)
            Self.notification("v1-a-prod", environment: .production, signed: 9_000, version: "1"),
            Self.notification("a-prod-unsigned", environment: .production, signed: nil),
            Self.notification("no-app", app: nil, environment: .production, signed: 8_000),
            Self.notification("no-environment", environment: nil, signed: 8_000),
        ]
        // One batch, and one verification at a time: the same answers.
        _ = try await store.commit(Array(entries.prefix(3)))
        for entry in entries.dropFirst(3) { _ = try await ledger.record(entry) }
        #expect(try await Self.latest(ledger, Self.app, .production) == 3_000)
        #expect(try await Self.latest(ledger, Self.app, .sandbox) == 2_000)
        #expect(try await Self.latest(ledger, Self.otherApp, .production) == 4_000)
        #expect(try await Self.latest(ledger, Self.otherApp, .sandbox) == 700)
        #expect(try await Self.latest(ledger, Self.app, .xcode) == nil)
        #expect(try await Self.latest(ledger, "org.example.unknown", .production) == nil)
        // A bundle id no notification could have is answered none, not an error (PostgreSQL's text refuses U+0000).
        #expect(try await Self.latest(ledger, "org.example.app\u{0}", .production) == nil)
        #expect(try await Self.latest(ledger, "", .production) == nil)
        await store.close()
    }

    /// Notifications arrive out of order (Apple retries, a backfill fetches older ones): an older one recorded
    /// after a newer one is recorded, and the latest stays the newer one's.
    @Test(arguments: Kind.allCases)
    func anOlderNotificationRecordedLaterDoesNotLowerTheLatest(kind: Kind) async throws {
        guard LedgerStoreTests.available(kind) else { return }
        let place = try await LedgerStoreTests.Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        #expect(try await Self.latest(ledger, Self.app, .production) == nil)
        _ = try await ledger.record(Self.notification("newer", signed: 5_000))
        #expect(try await Self.latest(ledger, Self.app, .production) == 5_000)
        let older = try await ledger.record(Self.notification("older", signed: 1_000))
        #expect(!older.isDuplicateNotification, "the older notification is recorded")
        #expect(try await Self.latest(ledger, Self.app, .production) == 5_000)
        _ = try await ledger.record(Self.notification("newest", signed: 6_000))
        #expect(try await Self.latest(ledger, Self.app, .production) == 6_000)
        await store.close()
    }

    /// A retry of a notification (the same `notificationUUID`) changes nothing, even one claiming another signed
    /// date, app or environment: the first recording stands.
    @Test(arguments: Kind.allCases)
    func aDuplicateNotificationChangesNothing(kind: Kind) async throws {
        guard LedgerStoreTests.available(kind) else { return }
        let place = try await LedgerStoreTests.Place(kind)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        #expect(!(try await ledger.record(Self.notification("n-1", signed: 2_000)).isDuplicateNotification))
        #expect(try await ledger.record(Self.notification("n-1", signed: 2_000)).isDuplicateNotification)
        #expect(try await ledger.record(Self.notification("n-1", signed: 7_000)).isDuplicateNotification)
        let moved = Self.notification("n-1", app: Self.otherApp, environment: .sandbox, signed: 7_000)
        #expect(try await ledger.record(moved).isDuplicateNotification)
        #expect(try await Self.latest(ledger, Self.app, .production) == 2_000)
        #expect(try await Self.latest(ledger, Self.otherApp, .sandbox) == nil)
        await store.close()
    }

    /// A bundle id outside ``LedgerLimits`` is refused before the entry joins a batch, as every other value is.
    @Test(arguments: ["", "org.example\u{0}", "org.example\u{1F}", String(repeating: "a", count: 256)])
    func aNotificationWhoseBundleIDIsOutsideTheLimitsIsRefused(bundleID: String) async throws {
        let folder = try TemporaryFolder()
        let store = try SQLiteLedgerStore(path: folder.url.appendingPathComponent("ledger.sqlite").path)
        let ledger = Ledger(store: store)
        let error = await #expect(throws: LedgerError.self) {
            try await ledger.record(Self.notification("n-1", app: bundleID, signed: 1_000))
        }
        #expect(error?.code == .invalidEntry)
        #expect(
            Self.notification("n-1", app: String(repeating: "a", count: 255), signed: 1_000).unstorableReason() == nil)
        await store.close()
    }

    /// A ledger made with the version-3 schema, holding notifications: opening it migrates it to version 4, its
    /// rows stay (naming no app), a retry of one is still a duplicate, and new notifications are read back.
    @Test(arguments: Kind.allCases)
    func aVersion3LedgerUpgradesKeepingItsNotifications(kind: Kind) async throws {
        guard LedgerStoreTests.available(kind) else { return }
        let place = try await LedgerStoreTests.Place(kind)
        try await Self.makeVersion3Ledger(place)
        let store = try await place.open()
        let ledger = Ledger(store: store)
        #expect(
            try await Self.run(place, "SELECT MAX(version) FROM ledger_schema") == ["\(LedgerSchema.latestVersion)"])
        #expect(LedgerSchema.latestVersion >= 4)
        #expect(
            try await Self.run(
                place,
                "SELECT notification_id || ':' || COALESCE(bundle_id, 'NULL') || ':' || COALESCE(environment, 'NULL') "
                    + "FROM ledger_notifications ORDER BY notification_id") == [
                    "old-v1:NULL:NULL", "old-v2:NULL:NULL",
                ])
        #expect(try await Self.latest(ledger, Self.app, .production) == nil, "an old row names no app")
        #expect(try await ledger.record(Self.notification("old-v2", signed: 3_000)).isDuplicateNotification)
        #expect(try await Self.latest(ledger, Self.app, .production) == nil)
        _ = try await ledger.record(Self.notification("new-v2", signed: 4_000))
        #expect(try await Self.latest(ledger, Self.app, .production) == 4_000)
        #expect(try await Self.latest(ledger, Self.app, .sandbox) == nil)
        await store.close()
    }

    /// The read is served by `ledger_notifications_latest`, not a scan of every notification.
    @Test(arguments: Kind.allCases)
    func theLatestIsReadFromTheIndex(kind: Kind) async throws {
        guard LedgerStoreTests.available(kind) else { return }
        let place = try await LedgerStoreTests.Place(kind)
        let store = try await place.open()
        let plan: [String]
        switch kind {
        case .sqlite:
            plan = try await Self.run(
                place,
                "EXPLAIN QUERY PLAN "
                    + SQLiteStatements.latestNotificationSignedDate.replacingOccurrences(of: "?", with: "'x'"))
        case .postgres:
            // With sequential scans priced out, the planner takes the index whenever it can serve the query.
            let query = PostgresStatements.latestNotificationSignedDate.replacingOccurrences(of: "$1", with: "'x'")
                .replacingOccurrences(of: "$2", with: "'Production'")
            plan = try await Self.run(place, "SET enable_seqscan = off; EXPLAIN \(query)")
        }
        #expect(plan.contains { $0.contains("ledger_notifications_latest") }, "\(plan)")
        #expect(!plan.contains { $0.contains("SCAN ledger_notifications") || $0.contains("Seq Scan") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.contains("Sort") }, "\(plan)")
        await store.close()
    }

    /// A version-3 ledger at `place`: the schema's first three migrations, as a build of that version applied them,
    /// and two notifications written in that version's shape.
    static func makeVersion3Ledger(_ place: LedgerStoreTests.Place) async throws {
        let dialect: LedgerSchema.Dialect = place.kind == .sqlite ? .sqlite : .postgres
        var statements = [LedgerSchema.versionTable(dialect)]
        for (index, migration) in LedgerSchema.migrations(dialect).prefix(3).enumerated() {
            statements += migration
            statements.append("INSERT INTO ledger_schema (version, applied_ms) VALUES (\(index + 1), 0)")
        }
        let signed = LedgerStoreTests.time(8_000).millisecondsSince1970
        statements += [
            "INSERT INTO ledger_notifications (notification_id, version, notification_type, signed_date_ms, "
                + "received_ms) VALUES ('old-v2', '2', 'DID_RENEW', \(signed), 0)",
            "INSERT INTO ledger_notifications (notification_id, version, notification_type, received_ms, "
                + "unverified_hints) VALUES ('old-v1', '1', 'RENEWAL', 0, '{\"verified\":false}')",
        ]
        switch place.kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: try sqlitePath(place))
            let written = statements
            try await queue.write { db in for statement in written { try db.execute(sql: statement) } }
            try queue.close()
        case .postgres:
            let database = try #require(place.database)
            try await database.run("BEGIN; " + statements.joined(separator: ";\n") + "; COMMIT")
        }
        // The version-3 shape: the table has no column of version 4 yet.
        #expect(
            try await run(place, "SELECT COUNT(*) FROM ledger_notifications WHERE signed_date_ms IS NOT NULL") == ["1"])
        let hasBundleColumn =
            place.kind == .sqlite
            ? "SELECT COUNT(*) FROM pragma_table_info('ledger_notifications') WHERE name = 'bundle_id'"
            : "SELECT COUNT(*) FROM information_schema.columns WHERE table_name = 'ledger_notifications' "
                + "AND column_name = 'bundle_id'"
        #expect(try await run(place, hasBundleColumn) == ["0"])
    }

    /// A SQLite value as text, as psql prints it.
    static func text(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: ""
        case .int64(let integer): String(integer)
        case .double(let double): String(double)
        case .string(let string): string
        case .blob(let blob): "\(blob.count) bytes"
        }
    }

    /// The SQLite file of a place of kind `sqlite`.
    static func sqlitePath(_ place: LedgerStoreTests.Place) throws -> String {
        guard case .sqlite(let path) = try place.location else { throw LedgerError(.invalidLocation, "not SQLite") }
        return path
    }

    /// Runs `sql` on the place's database, outside any store; each row's first column as text.
    static func run(_ place: LedgerStoreTests.Place, _ sql: String) async throws -> [String] {
        switch place.kind {
        case .sqlite:
            let queue = try DatabaseQueue(path: try sqlitePath(place))
            defer { try? queue.close() }
            return try await queue.read { db in
                try Row.fetchAll(db, sql: sql).map { row in
                    // EXPLAIN QUERY PLAN says what each step does in its `detail` column.
                    text(row.hasColumn("detail") ? row["detail"] : row[0])
                }
            }
        case .postgres:
            let database = try #require(place.database)
            return try await database.run(sql).split(separator: "\n").map(String.init)
        }
    }
}
