import Hummingbird
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// `POST /v1/verify`: the project's richer verdict.
extension ReceiptRoutes {
    /// What a `/v1/verify` request asks, once its body is read.
    struct V1Call {
        /// The receipt: base64 text from JSON, or the raw bytes.
        let receiptData: [UInt8]
        /// `true` when the body was the receipt's raw bytes (`application/octet-stream`).
        let isRaw: Bool
        let options: V1Options
        /// A StoreKit 2 signed transaction (`signed_transaction`), verified instead of a receipt.
        var signedTransaction: [UInt8]?
    }

    /// `POST /v1/verify`: `{"receipt_data": base64, options…}` as JSON, or the receipt's raw bytes as
    /// `application/octet-stream` (options then in the query). Verdicts are HTTP 200; refusals are thrown
    /// and answered 400, 403, 408, 413, 415 or 503 with `{"error": {"code", "message"}}`.
    ///
    /// Options: `validation_time` (`creation`, `now`, or an RFC 3339 instant), `exclude_old_transactions`,
    /// `password`, `allow_remote` (default true), `device_id`, `account` (the ledger's owner of the receipt's
    /// purchases). Each may only narrow the operator's configuration
    /// (``V1Options``): a `password` other than the configured shared secret is refused with 403
    /// `server.shared_secret_mismatch`, a looser `validation_time` with 400 `server.invalid_option`; a `device_id`
    /// adds a device check to the operator's policy.
    func verify(_ request: Request, context: some RequestContext) async throws(ServerError) -> Response {
        let call = try await readV1Call(request)
        // Naming an account binds purchases to it and tells which the account owns: the backend's alone.
        if ledger != nil, call.options.account != nil { try access.authorize(request) }
        if let signedTransaction = call.signedTransaction {
            return try await verifySignedTransaction(signedTransaction, options: call.options, context: context)
        }
        // The operator's configuration wins: the same shared-secret check as /verifyReceipt (a wrong
        // password is refused here, never forwarded to Apple), and only a stricter validation time.
        guard sharedSecretAccepts(call.options.password) else {
            throw ServerError(.sharedSecretMismatch, "password is not this server's shared secret")
        }
        let now = configuration.clock()
        let time = try call.options.validationTime(policy: configuration.validationTime)
        let policy = try call.options.policy(narrowing: decider.policy)
        let decided = try await decide(
            call.receiptData, fallbackRequest(call.options, time: time, policy: policy, now: now))
        // Text that is not base64 is a transport mistake (HTTP 400), not a verdict about a receipt.
        if !call.isRaw, decided.decidedBy == .local, decided.verdict.decodingError?.code == .invalidBase64 {
            throw ServerError(.invalidBase64, "receipt_data is not base64 text")
        }
        let (result, outcome) = try await record(
            decided, received: call.receiptData, endpoint: "/v1/verify", account: call.options.account, now: now,
            context: context)
        return answerV1(result, ledger: outcome, options: call.options, now: now, context: context, request: request)
    }

    /// Reads the body as its media type says, and the options from the JSON or the query.
    /// - Throws: ``ServerError`` ``ServerError/Code/unsupportedMediaType``, the body reader's, the JSON
    ///   reader's, ``ServerError/Code/missingReceiptData`` or ``ServerError/Code/invalidOption``.
    func readV1Call(_ request: Request) async throws(ServerError) -> V1Call {
        let isRaw: Bool
        switch request.headers[.contentType].map({ Self.mediaType($0) }) {
        case nil, "application/json": isRaw = false
        case "application/octet-stream": isRaw = true
        case .some(let other):
            throw ServerError(
                .unsupportedMediaType, "Content-Type \(other) is not application/json or application/octet-stream")
        }
        let body = try await bodyReader.read(request)
        if isRaw {
            let query = try QueryParameters(request.uri.query).pairs.map { ($0.name, $0.value) }
            return V1Call(receiptData: body, isRaw: true, options: try V1Options(query: query))
        }
        let json = try RequestJSON(parsing: body)
        if let signedTransaction = try json.string("signed_transaction") {
            return V1Call(
                receiptData: [], isRaw: false, options: try V1Options(json: json), signedTransaction: signedTransaction)
        }
        guard let receiptData = try json.string("receipt_data") else {
            throw ServerError(.missingReceiptData, "no receipt_data")
        }
        return V1Call(receiptData: receiptData, isRaw: false, options: try V1Options(json: json))
    }

    /// What the fallback is asked: the client's options within the operator's configuration.
    func fallbackRequest(_ options: V1Options, time: ValidationTime, policy: ReceiptPolicy?, now: ReceiptDate)
        -> FallbackRequest
    {
        FallbackRequest(
            password: options.password ?? configuration.sharedSecret,
            excludeOldTransactions: options.excludeOldTransactions ? true : nil,
            subscriptionStateAt: options.password == nil ? nil : now, validationTime: time, now: now, policy: policy,
            allowsRemote: options.allowsRemote)
    }

    /// The verdict as `/v1/verify`'s JSON, HTTP 200, with the ledger's outcome as `ledger` when there is one.
    func answerV1(
        _ result: AttributedVerdict, ledger outcome: LedgerOutcome?, options: V1Options, now: ReceiptDate,
        context: some RequestContext, request: Request
    ) -> Response {
        let status = VerifyReceiptStatus.status(of: result)
        noteAnswer(status: status, result: result, request: request, context: context)
        let body = VerdictJSON.response(
            result, requestDate: now, excludeOldTransactions: options.excludeOldTransactions
        ) { writer in
            guard let outcome else { return }
            writer.key("ledger")
            LedgerJSON.write(outcome: outcome, to: &writer)
        }
        return Self.response(.ok, contentType: "application/json", body: body)
    }
}
