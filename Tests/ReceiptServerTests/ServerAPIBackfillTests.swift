import AppleStandIn
import Foundation
import Logging
import ReceiptForge
import ReceiptIntake
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptServer
import ReceiptVerification
import Synchronization
import TestSupport
import Testing

/// Notification backfill against the stand-in's Get Notification History (issue 26): hundreds of notifications
/// applied once each within the configured rate, a backfill after downtime that applies only what was missed, and
/// the start-up service's log line and metrics.
@Suite("server API notification backfill", .timeLimit(.minutes(2)))
struct ServerAPIBackfillTests {
    typealias API = ServerAPITestSupport
    static let minute: Int64 = 60_000

    /// Notifications about `customers` customers of `renewals` (at most 13) transactions each, the `i`th signed
    /// `base + i` minutes. Nested transactions and renewal infos keep the dates they were signed at: monthly from
    /// 400 days before `base`, so all before it and inside the test JWS leaf's validity.
    static func notifications(
        customers: Int, renewals: Int, base: ReceiptDate, firstID: Int64 = 4_000_000_000,
        environment: ReceiptEnvironment = .sandbox
    ) -> (transactions: [ServerAPITransaction], notifications: [NotificationV2Description]) {
        let first = ReceiptDate(clampingMillisecondsSince1970: base.millisecondsSince1970 - 400 * API.day)
        let transactions = (0..<customers).flatMap { customer in
            API.customer(
                first: firstID + Int64(customer) * 1000, count: renewals, environment: environment, start: first)
        }
        var notifications = ServerAPIData.notifications(
            about: transactions, bundleID: API.bundle, environment: environment, appAppleID: API.appAppleID)
        for index in notifications.indices {
            notifications[index].signedDate = base.millisecondsSince1970 + Int64(index) * minute
        }
        return (transactions, notifications)
    }

    static func call(
        now: ReceiptDate, since: ReceiptDate? = nil, until: ReceiptDate? = nil,
        environment: ReceiptEnvironment = .sandbox
    ) -> BackfillCall {
        BackfillCall(
            bundleID: API.bundle, environment: environment, since: since, until: until, auditEndpoint: "backfill",
            now: now)
    }

    /// The most requests `requests` (arrival times in milliseconds) put in any one-second window `[t, t + 1000)`.
    static func busiestSecond(_ arrivals: [Int64]) -> Int {
        let sorted = arrivals.sorted()
        var busiest = 0
        var low = 0
        for high in sorted.indices {
            while sorted[high] - sorted[low] >= 1000 { low += 1 }
            busiest = max(busiest, high - low + 1)
        }
        return busiest
    }

    @Test func busiestSecondCountsAHalfOpenWindow() {
        #expect(Self.busiestSecond([]) == 0)
        #expect(Self.busiestSecond([0, 999, 1000, 1999]) == 2)
        #expect(Self.busiestSecond([0, 1, 2, 1001]) == 3)
    }

    @Test func hundredsOfNotificationsAreEachAppliedOnceWithinTheRate() async throws {
        // 240 notifications, 3 a page: 80 requests. Sandbox gets a tenth of the configured 200/s: 20 a second.
        let base = API.start
        let now = ReceiptDate(clampingMillisecondsSince1970: base.millisecondsSince1970 + 240 * Self.minute + 1)
        let made = Self.notifications(customers: 24, renewals: 10, base: base)
        let standIn = try API.standIn(
            sandbox: ServerAPIData(
                bundleID: API.bundle, transactions: made.transactions, notifications: made.notifications),
            pageSize: 3)
        let folder = try TemporaryFolder()
        let ledger = try API.sqliteLedger(folder)
        let verifier = try API.verifier()
        let report = try await standIn.withRunning { addresses in
            try await API.intake(
                ledger: ledger, verifier: verifier, serverAPI: try API.client(addresses, verifier: verifier, rate: 200)
            ).backfillNotifications(Self.call(now: now), logger: API.quietLogger)
        }
        #expect(report.seen == 240)
        #expect(report.pages == 80)
        #expect(report.failed.isEmpty, "\(report.failed.prefix(3))")
        #expect(report.duplicates == 0)
        #expect(report.applied.count == 240)
        #expect(Set(report.applied) == Set(made.notifications.compactMap(\.notificationUUID)), "each applied once")
        #expect(report.applied == made.notifications.compactMap(\.notificationUUID), "in Apple's order, oldest first")
        for transaction in made.transactions {
            let id = try #require(transaction.transaction.transactionId)
            #expect(try await ledger.transaction(id: id)?.0.transactionID == id)
        }
        let requests = standIn.apiRequests(.sandbox)
        #expect(requests.count == 80)
        #expect(standIn.apiRequests(.production).isEmpty)
        #expect(Self.busiestSecond(requests.map(\.arrivalMilliseconds)) <= 20)
        #expect(standIn.rateLimitViolations().isEmpty)
    }

    @Test func aProductionBackfillOfOneNotificationAPageKeepsToTheRate() async throws {
        // One notification a page, so the client asks faster than the limit allows and the limiter decides:
        // 70 requests at 20 a second in Production (the app's Apple id is configured, as Production needs).
        let base = API.start
        let now = ReceiptDate(clampingMillisecondsSince1970: base.millisecondsSince1970 + 70 * Self.minute + 1)
        let made = Self.notifications(customers: 7, renewals: 10, base: base, environment: .production)
        let standIn = try API.standIn(
            production: ServerAPIData(
                bundleID: API.bundle, appAppleID: API.appAppleID, transactions: made.transactions,
                notifications: made.notifications),
            pageSize: 1)
        let folder = try TemporaryFolder()
        let ledger = try API.sqliteLedger(folder)
        let verifier = try API.verifier()
        let report = try await standIn.withRunning { addresses in
            try await API.intake(
                ledger: ledger, verifier: verifier, serverAPI: try API.client(addresses, verifier: verifier, rate: 20)
            ).backfillNotifications(Self.call(now: now, environment: .production), logger: API.quietLogger)
        }
        #expect(report.environment == .production)
        #expect(report.failed.isEmpty, "\(report.failed.prefix(3))")
        #expect(report.applied == made.notifications.compactMap(\.notificationUUID))
        let requests = standIn.apiRequests(.production)
        #expect(requests.count == 70)
        #expect(Self.busiestSecond(requests.map(\.arrivalMilliseconds)) <= 20)
        #expect(standIn.rateLimitViolations().isEmpty)
    }

    @Test func aBackfillAfterDowntimeAppliesWhatWasMissedOnce() async throws {
        // One customer, twelve renewals: notifications 0...11 signed a minute apart. The ledger got 0...4 pushed
        // before the downtime; 5...11 were missed. A 13th notification, signed last, carries a renewal info Apple
        // signed before the newest one (auto-renew off): it must not override what the ledger holds.
        let base = API.start
        var made = Self.notifications(customers: 1, renewals: 12, base: base)
        var stale = made.notifications[3]
        stale.notificationType = "DID_CHANGE_RENEWAL_STATUS"
        stale.subtype = "AUTO_RENEW_DISABLED"
        stale.notificationUUID = "00000000-0000-4000-8000-999999999999"
        stale.signedDate = base.millisecondsSince1970 + 12 * Self.minute
        stale.data?.renewalInfo?.autoRenewStatus = 0
        made.notifications.append(stale)
        let uuids = made.notifications.compactMap(\.notificationUUID)
        let newest = try #require(made.transactions.last?.transaction)
        let standIn = try API.standIn(
            sandbox: ServerAPIData(
                bundleID: API.bundle, transactions: made.transactions, notifications: made.notifications),
            pageSize: 4)
        let folder = try TemporaryFolder()
        let ledger = try API.sqliteLedger(folder)
        let verifier = try API.verifier()
        let now = ReceiptDate(clampingMillisecondsSince1970: base.millisecondsSince1970 + 60 * Self.minute)
        let (report, again) = try await standIn.withRunning { addresses in
            let intake = API.intake(
                ledger: ledger, verifier: verifier, serverAPI: try API.client(addresses, verifier: verifier))
            for notification in made.notifications.prefix(5) {
                let jws = try API.minter.mint(.notification(notification))
                let pushed = try await intake.receiveNotification(
                    Array(jws.utf8), auditEndpoint: "/v1/notifications/appstore",
                    now: ReceiptDate(clampingMillisecondsSince1970: notification.signedDate ?? 0),
                    logger: API.quietLogger)
                #expect(!pushed.outcome.isDuplicateNotification)
            }
            let report = try await intake.backfillNotifications(Self.call(now: now), logger: API.quietLogger)
            let again = try await intake.backfillNotifications(Self.call(now: now), logger: API.quietLogger)
            return (report, again)
        }
        // Since the latest the ledger held (notification 4, signed at base + 4 min): 4 is seen again.
        #expect(report.since.millisecondsSince1970 == base.millisecondsSince1970 + 4 * Self.minute)
        #expect(report.failed.isEmpty, "\(report.failed)")
        #expect(report.applied == Array(uuids[5...]), "every missed notification, once, oldest first")
        #expect(report.duplicates == 1)
        #expect(report.seen == report.applied.count + report.duplicates)
        #expect(again.applied.isEmpty, "a second backfill applies nothing again")
        #expect(again.duplicates == 1, "it starts from the stale notification, the latest signed")
        // Every transaction is in the ledger; the renewal state is the newest Apple signed.
        for transaction in made.transactions {
            let id = try #require(transaction.transaction.transactionId)
            #expect(try await ledger.transaction(id: id)?.0.transactionID == id)
        }
        let held = try await ledger.subscriptions(originalTransactionIDs: [String(4_000_000_000)])
        #expect(held.renewals.count == 1)
        let renewal = try #require(held.renewals.first)
        #expect(renewal.autoRenewStatus == 1, "an older renewal info, whenever it arrives, changes nothing")
        #expect(renewal.signedDate.millisecondsSince1970 == newest.signedDate)
        #expect(renewal.renewalDate?.millisecondsSince1970 == newest.expiresDate)
        let audit = try await ledger.auditEntries(AuditQuery())
        #expect(audit.filter { $0.endpoint == "backfill" && $0.verdict == .valid }.count == 10)
    }

    @Test func theStartUpServiceLogsItsCountsAndCountsThemInMetrics() async throws {
        let base = API.start
        let made = Self.notifications(customers: 2, renewals: 4, base: base)
        let standIn = try API.standIn(
            sandbox: ServerAPIData(
                bundleID: API.bundle, transactions: made.transactions, notifications: made.notifications),
            production: ServerAPIData(bundleID: API.bundle, appAppleID: API.appAppleID),
            pageSize: 5)
        let folder = try TemporaryFolder()
        let ledger = try API.sqliteLedger(folder)
        let verifier = try API.verifier()
        let decider = FallbackVerifier(verifier: verifier)
        let now = ReceiptDate(clampingMillisecondsSince1970: base.millisecondsSince1970 + 30 * Self.minute)
        let recorder = LoggingTests.LogRecorder()
        let logger = Logger(label: "backfill-test") { _ in LoggingTests.RecordingHandler(recorder: recorder) }
        let metrics = ServerMetrics()
        try await standIn.withRunning { addresses in
            let intake = ReceiptIntake(
                decider: decider, ledger: ledger, rules: IntakeRules(), maximumInFlight: 8,
                serverAPI: try API.client(addresses, verifier: verifier))
            // Notification 0 was pushed before the start: a duplicate for the backfill.
            let jws = try API.minter.mint(.notification(made.notifications[0]))
            _ = try await intake.receiveNotification(
                Array(jws.utf8), auditEndpoint: "push", now: now, logger: API.quietLogger)
            await NotificationBackfillService(
                intake: intake, bundleIDs: [API.bundle], metrics: metrics, clock: { now }, logger: logger
            ).run()
        }
        let lines = recorder.entries.withLock { $0 }.filter { $0.message == "notifications backfilled" }
        #expect(lines.count == 2, "one line per environment: \(recorder.lines)")
        #expect(lines.allSatisfy { $0.level == .info })
        let sandbox = try #require(lines.first { $0.metadata["environment"] == "Sandbox" })
        #expect(sandbox.metadata["bundle_id"] == API.bundle)
        #expect(sandbox.metadata["applied"] == "7")
        #expect(sandbox.metadata["duplicates"] == "1")
        #expect(sandbox.metadata["failed"] == "0")
        let production = try #require(lines.first { $0.metadata["environment"] == "Production" })
        #expect(production.metadata["applied"] == "0")
        #expect(recorder.entries.withLock { $0 }.allSatisfy { $0.level < .warning }, "\(recorder.lines)")
        let text = String(
            decoding: metrics.exposition(
                cache: decider.cacheStatistics, renderings: RenderedPurchasesCache().statistics, inFlight: 0),
            as: UTF8.self)
        #expect(
            text.contains(#"receipt_server_backfilled_notifications_total{environment="Sandbox",outcome="applied"} 7"#),
            "\(text)")
        #expect(
            text.contains(
                #"receipt_server_backfilled_notifications_total{environment="Sandbox",outcome="duplicate"} 1"#))
        #expect(
            text.contains(
                #"receipt_server_backfilled_notifications_total{environment="Production",outcome="applied"} 0"#))
        #expect(!text.contains("backfill_failed"))
    }

    @Test func aNotificationPushedAfterTheStartDoesNotHideWhatWasMissed() async throws {
        // The ledger got notifications 0...4 before the downtime; 5...10 were sent while the server was down; 11 is
        // pushed as soon as the server listens, before the start-up backfill gets to Sandbox.
        let base = API.start
        let made = Self.notifications(customers: 1, renewals: 12, base: base)
        let standIn = try API.standIn(
            sandbox: ServerAPIData(
                bundleID: API.bundle, transactions: made.transactions, notifications: made.notifications),
            production: ServerAPIData(bundleID: API.bundle, appAppleID: API.appAppleID), pageSize: 5)
        let folder = try TemporaryFolder()
        let ledger = try API.sqliteLedger(folder)
        let verifier = try API.verifier()
        let decider = FallbackVerifier(verifier: verifier)
        let now = ReceiptDate(clampingMillisecondsSince1970: base.millisecondsSince1970 + 60 * Self.minute)
        let metrics = ServerMetrics()
        try await standIn.withRunning { addresses in
            let intake = ReceiptIntake(
                decider: decider, ledger: ledger, rules: IntakeRules(), maximumInFlight: 8,
                serverAPI: try API.client(addresses, verifier: verifier))
            func push(_ index: Int) async throws {
                let jws = try API.minter.mint(.notification(made.notifications[index]))
                _ = try await intake.receiveNotification(
                    Array(jws.utf8), auditEndpoint: "push", now: now, logger: API.quietLogger)
            }
            for index in 0...4 { try await push(index) }
            // As ReceiptService.run does: where to start is read before the routes listen.
            let service = await NotificationBackfillService(
                intake: intake, bundleIDs: [API.bundle], metrics: metrics, clock: { now }, logger: API.quietLogger
            ).readingStartingPoints()
            try await push(11)
            await service.run()
        }
        for transaction in made.transactions[5...10] {
            let id = try #require(transaction.transaction.transactionId)
            #expect(try await ledger.transaction(id: id) != nil, "transaction \(id), sent while down, was backfilled")
        }
        let text = String(
            decoding: metrics.exposition(
                cache: decider.cacheStatistics, renderings: RenderedPurchasesCache().statistics, inFlight: 0),
            as: UTF8.self)
        #expect(
            text.contains(
                #"receipt_server_backfilled_notifications_total{environment="Sandbox",outcome="applied"} 6"#),
            "\(text)")
        #expect(
            text.contains(
                #"receipt_server_backfilled_notifications_total{environment="Sandbox",outcome="duplicate"} 2"#))
    }
}
