import BER
import Hummingbird
import Logging
import ReceiptIntake
import ReceiptLedger
import ReceiptModel

/// The ledger's own reads, the backend's alone (``APIAccess``): `GET /v1/entitlements` and
/// `GET /v1/transactions/{id}`.
struct LedgerController {
    let routes: ReceiptRoutes

    func add<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get("/v1/entitlements") { request, context in
            try await entitlements(request, context: context)
        }
        router.get("/v1/transactions/:id") { request, context in
            try await transaction(request, context: context)
        }
    }

    /// `GET /v1/entitlements?account=A&at=RFC3339`: what the account is entitled to at `at` (default now).
    func entitlements(_ request: Request, context: some RequestContext) async throws(ServerError) -> Response {
        let ledger = try routes.calling { () throws(IntakeError) in try routes.intake.requireLedger() }
        try routes.access.authorize(request)
        let query = try QueryParameters(request.uri.query)
        guard let account = query["account"], LedgerEntry.isValidAccount(account) else {
            throw ServerError(.invalidOption, "account takes 1 to 256 bytes of UTF-8")
        }
        var instant = routes.configuration.clock()
        if let text = query["at"] {
            guard let asked = ReceiptDate(rfc3339: text) else {
                throw ServerError(.invalidOption, "at takes an RFC 3339 instant")
            }
            instant = asked
        }
        let entitlements = try await read(context) { () async throws(LedgerError) in
            try await ledger.entitlements(account: account, at: instant)
        }
        return ReceiptRoutes.jsonResponse(
            .ok, body: LedgerJSON.entitlements(entitlements, account: account, at: instant))
    }

    /// `GET /v1/transactions/{id}`: the ledger's record and its purchase's owner, or 404.
    func transaction(_ request: Request, context: some RequestContext) async throws(ServerError) -> Response {
        let ledger = try routes.calling { () throws(IntakeError) in try routes.intake.requireLedger() }
        try routes.access.authorize(request)
        // The router hands the path segment as sent: decoded here, once, and held to the shape of a transaction id.
        guard let raw = context.parameters.get("id"), let id = Hex.percentDecoded(raw[...]),
            LedgerLimits.isIdentifier(id)
        else {
            throw ServerError(
                .invalidOption, "a transaction id is 1 to 64 letters, digits, '.', '-' or '_' (percent-decoded once)")
        }
        let found = try await read(context) { () async throws(LedgerError) in try await ledger.transaction(id: id) }
        guard let (transaction, owner) = found else {
            throw ServerError(.transactionNotFound, "the ledger holds no transaction with this id")
        }
        return ReceiptRoutes.jsonResponse(.ok, body: LedgerJSON.transaction(transaction, owner: owner))
    }

    /// A ledger read; a store that fails it is logged and answered 503 `ledger.unavailable`.
    func read<T>(_ context: some RequestContext, _ body: () async throws(LedgerError) -> T)
        async throws(ServerError) -> T
    {
        do {
            return try await body()
        } catch {
            context.logger.error("ledger read failed", metadata: ["error": "\(error)"])
            throw ServerError(.ledgerUnavailable, "the ledger could not be read; try again")
        }
    }
}
