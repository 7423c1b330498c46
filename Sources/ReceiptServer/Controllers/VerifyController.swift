import Hummingbird
import ReceiptIntake
import ReceiptLedger
@_spi(Fuzzing) import ReceiptModel
@_spi(Fuzzing) import ReceiptRemote
import ReceiptVerification

/// `POST /v1/verify`: the project's richer verdict, for an app receipt or a StoreKit 2 signed transaction.
///
/// `{"receipt_data": base64, options…}` as JSON, or the receipt's raw bytes as `application/octet-stream`
/// (options then in the query), or `{"signed_transaction": "<jws>", options…}`. Verdicts are HTTP 200; refusals
/// are thrown and answered 400, 403, 408, 413, 415 or 503 with `{"error": {"code", "message"}}`.
///
/// Options: `validation_time` (`creation`, `now`, or an RFC 3339 instant), `exclude_old_transactions`,
/// `password`, `allow_remote` (default true), `device_id`, `account` (the ledger's owner of the purchases). Each
/// may only narrow the operator's configuration (``V1Options``): a `password` other than the configured shared
/// secret is refused with 403 `server.shared_secret_mismatch`, a looser `validation_time` with 400
/// `server.invalid_option`; a `device_id` adds a device check to the operator's policy.
struct VerifyController {
    let routes: ReceiptRoutes
    static let endpoint = "/v1/verify"

    /// What a `/v1/verify` request asks, once its body is read.
    struct Call {
        /// The receipt: base64 text from JSON (a slice of the body when it has no escapes, which keeps the body until
        /// the request is answered), or the raw bytes.
        let receiptData: ArraySlice<UInt8>
        /// `true` when the body was the receipt's raw bytes (`application/octet-stream`).
        let isRaw: Bool
        let options: V1Options
        /// A StoreKit 2 signed transaction (`signed_transaction`), verified instead of a receipt.
        var signedTransaction: [UInt8]?
    }

    func add<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.post(RouterPath(Self.endpoint)) { request, context in
            try await verify(request, context: context)
        }
    }

    nonisolated(nonsending) func verify(
        _ request: Request, context: some RequestContext
    ) async throws(ServerError) -> Response {
        let call = try await read(request)
        // Naming an account binds purchases to it and tells which the account owns: the backend's alone.
        if routes.ledger != nil, call.options.account != nil { try routes.access.authorize(request) }
        // The operator's configuration wins: the same shared-secret check as /verifyReceipt (a wrong password is
        // refused here, never forwarded to Apple), and only a stricter validation time.
        guard routes.intake.rules.accepts(password: call.options.password) else {
            throw ServerError(.sharedSecretMismatch, "password is not this server's shared secret")
        }
        if let signedTransaction = call.signedTransaction {
            return try await verifySignedTransaction(signedTransaction, options: call.options, context: context)
        }
        let now = routes.configuration.clock()
        let time = try call.options.validationTime(policy: routes.configuration.validationTime)
        let policy = try call.options.policy(narrowing: routes.decider.policy)
        let receiptCall = ReceiptCall(
            receiptData: call.receiptData,
            request: fallbackRequest(call.options, time: time, policy: policy, now: now), contract: .verdict,
            account: call.options.account, isText: !call.isRaw, auditEndpoint: Self.endpoint, now: now)
        let answer = try await routes.calling { () async throws(IntakeError) in
            try await routes.intake.verify(receiptCall, logger: context.logger)
        }
        routes.noteAnswer(status: answer.status, result: answer.result, request: request, context: context)
        let body = VerdictJSON.response(
            answer.result, requestDate: now, excludeOldTransactions: call.options.excludeOldTransactions
        ) { writer in
            guard let outcome = answer.ledger else { return }
            writer.key("ledger")
            LedgerJSON.write(outcome: outcome, to: &writer)
        }
        return ReceiptRoutes.response(.ok, contentType: "application/json", body: body)
    }

    /// A StoreKit 2 transaction, verified locally (Apple is never asked about a JWS) and recorded in the ledger as
    /// a receipt's transactions are.
    func verifySignedTransaction(_ text: [UInt8], options: V1Options, context: some RequestContext)
        async throws(ServerError) -> Response
    {
        try routes.calling { () throws(IntakeError) in try routes.intake.requireConfiguredApps() }
        let now = routes.configuration.clock()
        let call = SignedTransactionCall(
            jws: text, validationTime: try options.validationTime(policy: routes.configuration.validationTime),
            policy: try options.policy(narrowing: routes.decider.policy), account: options.account,
            auditEndpoint: Self.endpoint, now: now)
        let (verdict, outcome) = try await routes.calling { () async throws(IntakeError) in
            try await routes.intake.verifySignedTransaction(call, logger: context.logger)
        }
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        JWSVerdictJSON.write(verdict, to: &writer)
        if let outcome {
            writer.key("ledger")
            LedgerJSON.write(outcome: outcome, to: &writer)
        }
        writer.endObject()
        return ReceiptRoutes.jsonResponse(.ok, body: writer.bytes)
    }

    /// Reads the body as its media type says, and the options from the JSON or the query.
    /// - Throws: ``ServerError`` ``ServerError/Code/unsupportedMediaType``, the body reader's, the JSON
    ///   reader's, ``ServerError/Code/missingReceiptData`` or ``ServerError/Code/invalidOption``.
    nonisolated(nonsending) func read(_ request: Request) async throws(ServerError) -> Call {
        let isRaw: Bool
        switch request.headers[.contentType].map({ ReceiptRoutes.mediaType($0) }) {
        case nil, "application/json": isRaw = false
        case "application/octet-stream": isRaw = true
        case .some(let other):
            throw ServerError(
                .unsupportedMediaType, "Content-Type \(other) is not application/json or application/octet-stream")
        }
        let body = try await routes.bodyReader.read(request)
        if isRaw {
            let query = try QueryParameters(request.uri.query).pairs.map { ($0.name, $0.value) }
            return Call(receiptData: body[...], isRaw: true, options: try V1Options(query: query))
        }
        let json = try RequestJSON(parsing: body)
        if let signedTransaction = try json.string("signed_transaction") {
            return Call(
                receiptData: [], isRaw: false, options: try V1Options(json: json),
                signedTransaction: Array(signedTransaction))
        }
        guard let receiptData = try json.string("receipt_data") else {
            throw ServerError(.missingReceiptData, "no receipt_data")
        }
        return Call(receiptData: receiptData, isRaw: false, options: try V1Options(json: json))
    }

    /// What the fallback is asked: the client's options within the operator's configuration.
    func fallbackRequest(_ options: V1Options, time: ValidationTime, policy: ReceiptPolicy?, now: ReceiptDate)
        -> FallbackRequest
    {
        FallbackRequest(
            password: options.password ?? routes.configuration.sharedSecret,
            excludeOldTransactions: options.excludeOldTransactions ? true : nil,
            subscriptionStateAt: options.password == nil ? nil : now, validationTime: time, now: now, policy: policy,
            allowsRemote: options.allowsRemote)
    }
}
