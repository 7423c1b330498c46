import Hummingbird
import ReceiptIntake
import ReceiptLedger
@_spi(Fuzzing) import ReceiptModel

/// `POST /v1/notifications/appstore`: the URL an operator gives Apple for App Store Server Notifications, V2
/// (`{"signedPayload": "<jws>"}`) and V1 (`notification_type`, `password`, `unified_receipt`).
///
/// The intake verifies and records (``ReceiptIntake/ReceiptIntake/receiveNotification(_:auditEndpoint:now:logger:)``);
/// this answers 200 only once the ledger holds the notification durably, 422 `notification.rejected` for one that
/// does not verify (it changes nothing but its audit entry), 403 `server.shared_secret_mismatch` for a wrong V1
/// password.
struct NotificationController {
    let routes: ReceiptRoutes
    static let endpoint = "/v1/notifications/appstore"

    func add<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.post(RouterPath(Self.endpoint)) { request, context in
            try await notification(request, context: context)
        }
    }

    func notification(_ request: Request, context: some RequestContext) async throws(ServerError) -> Response {
        let intake = routes.intake
        try routes.calling { () throws(IntakeError) in
            _ = try intake.requireLedger()
            try intake.requireConfiguredApps()
        }
        let body = try NotificationBody(parsing: try await routes.bodyReader.read(request))
        let now = routes.configuration.clock()
        let answer = try await routes.calling { () async throws(IntakeError) in
            switch body {
            case .version2(let signedPayload):
                try await intake.receiveNotification(
                    signedPayload, auditEndpoint: Self.endpoint, now: now, logger: context.logger)
            case .version1(let call):
                try await intake.receiveNotification(
                    call, auditEndpoint: Self.endpoint, now: now, logger: context.logger)
            }
        }
        return ReceiptRoutes.jsonResponse(.ok, body: Self.body(answer.notification, answer.outcome))
    }

    /// `{"status":"recorded"|"duplicate","notification_id","version","notification_type","new_transaction_ids",
    /// "stale_renewals"}`.
    static func body(_ notification: LedgerNotification, _ outcome: LedgerOutcome) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.field("status", outcome.isDuplicateNotification ? "duplicate" : "recorded")
        writer.field("notification_id", notification.id)
        writer.field("version", notification.version)
        writer.field("notification_type", notification.notificationType)
        writer.key("new_transaction_ids")
        writer.beginArray()
        for id in outcome.newTransactionIDs { writer.string(id) }
        writer.endArray()
        writer.field("stale_renewals", Int64(outcome.staleRenewals))
        writer.endObject()
        return writer.bytes
    }
}
