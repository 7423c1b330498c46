internal import HTTPTypes
import Hummingbird
import ReceiptIntake
import ReceiptLedger
import ReceiptModel
@_spi(Fuzzing) import ReceiptRemote
import ReceiptVerification

/// `POST /verifyReceipt` and `POST /sandbox/verifyReceipt`: Apple's request and response bodies.
///
/// Always HTTP 200 with a `status`, as Apple's endpoint, except for the refusals ``VerifyReceiptRefusal`` sends
/// with an HTTP status of their own (413, 408, 400, 503). With the ledger on, the verification is recorded before
/// it is answered; the body stays Apple's and `X-Receipt-New-Transactions` lists the ids reported new (empty when
/// none). Apple's request names no account, so nothing is bound here.
struct VerifyReceiptController {
    let routes: ReceiptRoutes

    /// What a verifyReceipt request asks, once its body is read.
    struct Call {
        /// `receipt-data`, as sent (base64 text, unchecked): a slice of the body when it has no escapes, which keeps
        /// the body (at most the body limit) until the request is answered, as a copy of the string did before.
        let receiptData: ArraySlice<UInt8>
        /// `password`, the app's shared secret.
        let password: String?
        /// `exclude-old-transactions`.
        let excludeOldTransactions: Bool
    }

    func add<Context: RequestContext>(to router: some RouterMethods<Context>) {
        for endpoint in [ReceiptEnvironment.production, .sandbox] {
            router.post(RouterPath(ReceiptRoutes.path(endpoint))) { request, context in
                try await verifyReceipt(request, context: context, endpoint: endpoint)
            }
        }
    }

    /// Reads the request, holds its password to the shared secret, hands it to the intake, renders the answer.
    nonisolated(nonsending) func verifyReceipt(
        _ request: Request, context: some RequestContext, endpoint: ReceiptEnvironment
    ) async throws(VerifyReceiptRefusal) -> Response {
        do {
            let call = try await read(request)
            guard routes.intake.rules.accepts(password: call.password) else {
                let status = VerifyReceiptStatus.sharedSecretMismatch
                routes.noteAnswer(status: status, result: nil, request: request, context: context)
                return ReceiptRoutes.response(
                    .ok, contentType: "application/json", body: VerifyReceiptBody.status(status))
            }
            let now = routes.configuration.clock()
            let answer = try await routes.calling { () async throws(IntakeError) in
                try await routes.intake.verify(
                    ReceiptCall(
                        receiptData: call.receiptData,
                        request: fallbackRequest(call, endpoint: endpoint, now: now),
                        contract: .verifyReceipt(endpoint), auditEndpoint: ReceiptRoutes.path(endpoint), now: now),
                    logger: context.logger)
            }
            return respond(answer, to: call, now: now, request: request, context: context)
        } catch {
            throw VerifyReceiptRefusal(error)
        }
    }

    /// Reads the body and its members.
    /// - Throws: the body reader's ``ServerError``, ``ServerError/Code/invalidJSON`` or
    ///   ``ServerError/Code/missingReceiptData``.
    nonisolated(nonsending) func read(_ request: Request) async throws(ServerError) -> Call {
        let json = try RequestJSON(parsing: try await routes.bodyReader.read(request))
        guard let receiptData = try json.string("receipt-data") else {
            throw ServerError(.missingReceiptData, "no receipt-data")
        }
        return Call(
            receiptData: receiptData,
            password: try json.string("password").map { String(decoding: $0, as: UTF8.self) },
            excludeOldTransactions: try json.bool("exclude-old-transactions") ?? false)
    }

    /// What the fallback is asked: the request's password (else the configured secret), and Apple's endpoint
    /// matching the one called.
    func fallbackRequest(_ call: Call, endpoint: ReceiptEnvironment, now: ReceiptDate) -> FallbackRequest {
        FallbackRequest(
            password: call.password ?? routes.configuration.sharedSecret,
            excludeOldTransactions: call.excludeOldTransactions ? true : nil,
            subscriptionStateAt: call.password == nil ? nil : now,
            validationTime: routes.configuration.validationTime, now: now, startEnvironment: endpoint)
    }

    /// The answer: its status, the debugging headers, and Apple's body from the one renderer.
    func respond(
        _ answer: ReceiptAnswer, to call: Call, now: ReceiptDate, request: Request, context: some RequestContext
    ) -> Response {
        routes.noteAnswer(status: answer.status, result: answer.result, request: request, context: context)
        let body = VerifyReceiptBody.answer(
            answer.result, status: answer.status, requestDate: now,
            excludeOldTransactions: call.excludeOldTransactions,
            // Apple returns latest_receipt for subscription receipts when given the shared secret.
            receiptData: call.password != nil ? call.receiptData : nil, supplement: answer.supplement,
            renderings: routes.renderings)
        var headers = headers(answer)
        if let outcome = answer.ledger {
            headers[ReceiptRoutes.newTransactionsHeader] = outcome.newTransactionIDs.joined(separator: ",")
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// `Content-Type`, `X-Receipt-Decided-By`, and `X-Receipt-Reason` when the status is not 0.
    func headers(_ answer: ReceiptAnswer) -> HTTPFields {
        var headers: HTTPFields = [.contentType: "application/json"]
        headers[ReceiptRoutes.decidedByHeader] = answer.result.decidedBy.rawValue
        // A reason explains a refusal; a status-0 answer has none to give (a note such as the fallback's
        // remote.subscription_expired stays in the verdict, not in the header). A valid receipt refused for its
        // unknown environment (21003, which neither endpoint can claim) is explained by the policy's code.
        guard answer.status != 0 else { return headers }
        let verdict = answer.result.verdict
        let unknownEnvironment = answer.status == 21003 && verdict.isValid && verdict.environment == nil
        let reason = unknownEnvironment ? Reason.Code.policyEnvironmentRejected : verdict.reason?.code
        if let reason { headers[ReceiptRoutes.reasonHeader] = reason.description }
        return headers
    }
}
