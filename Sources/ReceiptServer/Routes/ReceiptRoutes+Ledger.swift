import BER
internal import HTTPTypes
import Hummingbird
import Logging
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// The ledger's part of the routes: recording each verification before it is answered, and the ledger's own
/// reads, `GET /v1/entitlements` and `GET /v1/transactions/{id}`.
extension ReceiptRoutes {
    /// Response header listing, comma-separated, the transaction ids a `/verifyReceipt` answer reports new.
    // swift-format-ignore: NeverForceUnwrap
    static let newTransactionsHeader = HTTPField.Name("X-Receipt-New-Transactions")!  // a constant, valid token

    /// Records a verification in the ledger, when there is one, before it is answered.
    ///
    /// - Returns: the result to answer (turned `invalid` with reason `ledger.conflict` when the ledger refused a
    ///   conflicting verification) and the ledger's outcome (`nil` without a ledger).
    /// - Throws: ``ServerError`` ``ServerError/Code/ledgerUnavailable`` when the write failed: the verification
    ///   is not answered, so nothing is reported new that the ledger does not hold.
    /// - Parameter answeredStatus: the verifyReceipt status the route will answer. A status other than 0 (21007
    ///   for a sandbox receipt on the production endpoint, say) credits nothing: the client is told to look
    ///   elsewhere, so the receipt's transactions are left for the answer that says 0; the audit entry names the
    ///   status as its reason (`verify_receipt.status_21007`).
    /// - Parameter readsSubscriptions: original transaction ids whose subscriptions the outcome brings back.
    func record(
        _ result: AttributedVerdict, received: [UInt8], endpoint: String, account: String?, now: ReceiptDate,
        answeredStatus: Int? = nil, readsSubscriptions: [String] = [], context: some RequestContext
    ) async throws(ServerError) -> (AttributedVerdict, LedgerOutcome?) {
        guard let ledger else { return (result, nil) }
        var entry = LedgerEntry(
            verification: result, received: received, endpoint: endpoint, account: account, time: now,
            catalogue: ledger.catalogue, onConflict: ledger.onConflict)
        entry.readsSubscriptions = readsSubscriptions
        if let answeredStatus, answeredStatus != 0 {
            entry.transactions = []
            entry.reason = entry.reason ?? .verifyReceiptStatus(answeredStatus)
        }
        guard let outcome = try await recordEntry(entry, context: context) else { return (result, nil) }
        guard outcome.isRejected else { return (result, outcome) }
        let owners = Set(outcome.conflicts.map(\.owner)).sorted().joined(separator: ", ")
        let refusal = Reason(
            .ledgerConflict,
            "the receipt's purchases belong to another account (\(owners)); this server refuses conflicts")
        let verdict = result.verdict.deciding(.invalid, reasons: [refusal], environment: result.verdict.environment)
        let refused = AttributedVerdict(
            verdict: verdict, decidedBy: result.decidedBy, localVerdict: result.localVerdict, trigger: result.trigger,
            appleResponse: result.appleResponse, remoteError: result.remoteError)
        return (refused, outcome)
    }

    /// `GET /v1/entitlements?account=A&at=RFC3339`: what the account is entitled to at `at` (default now).
    func entitlements(_ request: Request, context: some RequestContext) async throws(ServerError) -> Response {
        let ledger = try requireLedger()
        try access.authorize(request)
        let query = try QueryParameters(request.uri.query)
        guard let account = query["account"], LedgerEntry.isValidAccount(account) else {
            throw ServerError(.invalidOption, "account takes 1 to 256 bytes of UTF-8")
        }
        var instant = configuration.clock()
        if let text = query["at"] {
            guard let asked = ReceiptDate(rfc3339: text) else {
                throw ServerError(.invalidOption, "at takes an RFC 3339 instant")
            }
            instant = asked
        }
        let entitlements = try await read(context) { () async throws(LedgerError) in
            try await ledger.entitlements(account: account, at: instant)
        }
        return Self.jsonResponse(.ok, body: LedgerJSON.entitlements(entitlements, account: account, at: instant))
    }

    /// `GET /v1/transactions/{id}`: the ledger's record and its purchase's owner, or 404.
    func transaction(_ request: Request, context: some RequestContext) async throws(ServerError) -> Response {
        let ledger = try requireLedger()
        try access.authorize(request)
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
        return Self.jsonResponse(.ok, body: LedgerJSON.transaction(transaction, owner: owner))
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

    func requireLedger() throws(ServerError) -> Ledger {
        guard let ledger else { throw ServerError(.ledgerDisabled, "this server runs without a ledger") }
        return ledger
    }
}
