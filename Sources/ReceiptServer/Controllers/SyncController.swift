import Hummingbird
import ReceiptIntake
import ReceiptLedger

/// `POST /v1/sync`: a customer's whole history from the App Store Server API, recorded through the ledger — from a
/// receipt verified locally first (an invalid one is refused 422 and Apple is not asked), or from a transaction id
/// the backend trusts. The backend's alone (``APIAccess``): it changes the ledger and spends Apple's rate budget.
///
/// Answers `{"synced", "new_transaction_ids", "known_transaction_ids", "failed": [{"index", "reason", "message"}],
/// "environment", "bundle_id", "transaction_id"}`, and `"note"` when nothing was looked up.
struct SyncController {
    let routes: ReceiptRoutes
    static let endpoint = "/v1/sync"

    func add<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.post(RouterPath(Self.endpoint)) { request, context in
            try await sync(request, context: context)
        }
    }

    func sync(_ request: Request, context: some RequestContext) async throws(ServerError) -> Response {
        // The token first: a caller without one learns nothing, not even whether the server has a key.
        try routes.access.authorize(request)
        let intake = routes.intake
        try routes.calling { () throws(IntakeError) in
            _ = try intake.requireLedger()
            _ = try intake.requireServerAPI()
        }
        let body = try SyncRequest(parsing: try await routes.bodyReader.read(request))
        let call = SyncCall(
            subject: body.subject, bundleID: body.bundleID, account: body.account, auditEndpoint: Self.endpoint,
            now: routes.configuration.clock())
        let answer = try await routes.calling { () async throws(IntakeError) in
            try await intake.sync(call, logger: context.logger)
        }
        return ReceiptRoutes.jsonResponse(.ok, body: LedgerJSON.sync(answer))
    }
}
