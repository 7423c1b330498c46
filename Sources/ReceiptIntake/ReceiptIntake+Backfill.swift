public import Logging
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// Notifications never lost: what Apple sent while the server was down, fetched from Get Notification History and
/// applied exactly as if it had been pushed.
extension ReceiptIntake {
    /// Backfills one app's notifications in one environment.
    ///
    /// Each page is applied before the next is fetched, oldest first as Apple lists them. A notification the ledger
    /// holds (by `notificationUUID`) is a duplicate; renewal state Apple signed earlier than what the ledger holds
    /// changes nothing; a notification that does not verify is audited and reported, never applied.
    /// - Throws: ``IntakeError``: `ledgerDisabled`, `serverAPIDisabled`, `bundleIDRequired`, `unknownApp`,
    ///   `serverAPIFailed` (the walk stopped: what was applied before stays applied, and the next backfill starts
    ///   from it), `ledgerUnavailable`, `digestFailed`.
    public func backfillNotifications(_ call: BackfillCall, logger: Logger) async throws(IntakeError) -> BackfillReport
    {
        let ledger = try requireLedger()
        let api = try requireServerAPI()
        try requireConfiguredApps()
        let bundleID = try configuredApp(call.bundleID)
        let environment: ReceiptEnvironment = call.environment == .production ? .production : .sandbox
        let windowStart = ReceiptDate(
            clampingMillisecondsSince1970: call.now.millisecondsSince1970
                - Int64(BackfillCall.window(environment).components.seconds) * 1000 + 60_000)
        var since = call.since
        if since == nil {
            do {
                since = try await ledger.latestNotificationSignedDate(bundleID: bundleID, environment: environment)
            } catch {
                throw IntakeError(.ledgerUnavailable, "the ledger could not say which notifications it holds: \(error)")
            }
        }
        let start = max(since ?? windowStart, windowStart)
        let end = call.until ?? call.now
        // Apple refuses a range that ends before it starts (a latest signedDate ahead of this clock, an --until
        // before --since): there is nothing to ask about.
        guard start < end else {
            return BackfillReport(
                bundleID: bundleID, environment: environment, since: start, until: end, pages: 0, seen: 0, applied: [],
                duplicates: 0, failed: [])
        }
        var applied: [String] = []
        var duplicates = 0
        var failed: [SyncAnswer.Failure] = []
        let query = NotificationHistoryQuery(start: start, end: end)
        let walked = try await recordingPages(
            "the notification history of \(bundleID) in \(environment.rawValue) from \(start) (rerun from there)"
        ) { (page) async throws(RemoteError) in
            try await api.notificationHistory(query, bundleID: bundleID, environment: environment, page: page)
        } record: { (items) async throws(IntakeError) in
            // Apple does not document the order within a page: the oldest first, so that what a stopped walk applied
            // is never newer than what it left.
            let unsigned = ReceiptDate(clampingMillisecondsSince1970: Int64.min)
            let ordered = items.sorted { first, second in
                (first.verdict.payload?.signedDate ?? unsigned, first.index)
                    < (second.verdict.payload?.signedDate ?? unsigned, second.index)
            }
            for item in ordered {
                // The operator's notification rules, whatever the client was built with: as for a pushed one.
                var verdict = item.verdict
                if let violation = rules.notifications.violation(of: verdict, receiptPolicy: decider.policy),
                    !verdict.reasons.contains(where: { $0.code == violation.code })
                {
                    verdict = verdict.adding(violation)
                }
                do throws(IntakeError) {
                    let answer = try await apply(
                        verdict, received: item.jws, auditEndpoint: call.auditEndpoint, now: call.now, ledger: ledger,
                        logger: logger)
                    if answer.outcome.isDuplicateNotification {
                        duplicates += 1
                    } else {
                        applied.append(answer.notification.id)
                    }
                } catch  where error.code == .notificationRejected {
                    failed.append(SyncAnswer.Failure(item, verdict: verdict))
                }
            }
        }
        logger.info(
            "notifications backfilled",
            metadata: [
                "bundle_id": "\(bundleID)", "environment": "\(environment.rawValue)",
                "since": "\(start)", "until": "\(end)", "pages": "\(walked.pages)", "seen": "\(walked.notifications)",
                "applied": "\(applied.count)", "duplicates": "\(duplicates)", "failed": "\(failed.count)",
            ])
        return BackfillReport(
            bundleID: bundleID, environment: environment, since: start, until: end, pages: walked.pages,
            seen: walked.notifications, applied: applied, duplicates: duplicates, failed: failed)
    }
}
