internal import HTTPTypes
import Hummingbird
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// `POST /verifyReceipt` and `POST /sandbox/verifyReceipt`: Apple's request and response bodies.
extension ReceiptRoutes {
    /// What a verifyReceipt request asks, once its body is read.
    struct VerifyReceiptCall {
        /// `receipt-data`, as sent (base64 text, unchecked).
        let receiptData: [UInt8]
        /// `password`, the app's shared secret.
        let password: String?
        /// `exclude-old-transactions`.
        let excludeOldTransactions: Bool
    }

    /// Answers a verifyReceipt request: read it, hold its password to the shared secret, verify, answer.
    ///
    /// Always HTTP 200 with a `status`, as Apple's endpoint, except for the refusals that
    /// ``VerifyReceiptRefusal`` sends with an HTTP status of their own (413, 408, 400, 503).
    ///
    /// With the ledger on, the verification is recorded before it is answered; the body stays Apple's and
    /// `X-Receipt-New-Transactions` lists the ids reported new (empty when none). Only an answer with status 0
    /// reports anything new (a 21007 sends the client to the other endpoint, which will). Apple's request names
    /// no account, so nothing is bound here.
    func verifyReceipt(
        _ request: Request, context: some RequestContext, endpoint: ReceiptEnvironment
    ) async throws(VerifyReceiptRefusal) -> Response {
        do {
            let call = try await readVerifyReceiptCall(request)
            guard sharedSecretAccepts(call.password) else {
                return answerVerifyReceipt(
                    status: VerifyReceiptStatus.sharedSecretMismatch, context: context, request: request)
            }
            let now = configuration.clock()
            let asked = fallbackRequest(call, endpoint: endpoint, now: now)
            let (decided, consultation) = try await decideWithLedger(call.receiptData, asked, context: context)
            let status = VerifyReceiptStatus.status(
                of: decided, endpoint: endpoint, acceptsAnyEnvironment: configuration.acceptsAnyEnvironment)
            let (result, outcome) = try await record(
                decided, received: call.receiptData, endpoint: Self.path(endpoint), account: nil, now: now,
                answeredStatus: status, readsSubscriptions: consultation.readsSubscriptions, context: context)
            var response = answerVerifyReceipt(
                result, to: call, endpoint: endpoint, now: now, knowledge: consultation.knowledge(after: outcome),
                context: context, request: request)
            if let outcome {
                response.headers[Self.newTransactionsHeader] = outcome.newTransactionIDs.joined(separator: ",")
            }
            return response
        } catch {
            throw VerifyReceiptRefusal(error)
        }
    }

    /// Reads the body and its members.
    /// - Throws: the body reader's ``ServerError``, ``ServerError/Code/invalidJSON`` or
    ///   ``ServerError/Code/missingReceiptData``.
    func readVerifyReceiptCall(_ request: Request) async throws(ServerError) -> VerifyReceiptCall {
        let json = try RequestJSON(parsing: try await bodyReader.read(request))
        guard let receiptData = try json.string("receipt-data") else {
            throw ServerError(.missingReceiptData, "no receipt-data")
        }
        return VerifyReceiptCall(
            receiptData: receiptData,
            password: try json.string("password").map { String(decoding: $0, as: UTF8.self) },
            excludeOldTransactions: try json.bool("exclude-old-transactions") ?? false)
    }

    /// What the fallback is asked: the request's password (else the configured secret), and Apple's endpoint
    /// matching the one called.
    func fallbackRequest(_ call: VerifyReceiptCall, endpoint: ReceiptEnvironment, now: ReceiptDate) -> FallbackRequest {
        FallbackRequest(
            password: call.password ?? configuration.sharedSecret,
            excludeOldTransactions: call.excludeOldTransactions ? true : nil,
            subscriptionStateAt: call.password == nil ? nil : now, validationTime: configuration.validationTime,
            now: now, startEnvironment: endpoint)
    }

    /// A status-only answer given before any verification (21004 for a wrong password).
    func answerVerifyReceipt(status: Int, context: some RequestContext, request: Request) -> Response {
        noteAnswer(status: status, result: nil, request: request, context: context)
        return Self.response(.ok, contentType: "application/json", body: VerifyReceiptBody.status(status))
    }

    /// The answer to a verified receipt: its status for the endpoint called, the debugging headers, and
    /// Apple's body.
    func answerVerifyReceipt(
        _ result: AttributedVerdict, to call: VerifyReceiptCall, endpoint: ReceiptEnvironment, now: ReceiptDate,
        knowledge: LedgerKnowledge? = nil, context: some RequestContext, request: Request
    ) -> Response {
        let status = VerifyReceiptStatus.status(
            of: result, endpoint: endpoint, acceptsAnyEnvironment: configuration.acceptsAnyEnvironment)
        noteAnswer(status: status, result: result, request: request, context: context)
        let body = verifyReceiptBody(result, status: status, call: call, now: now, knowledge: knowledge)
        return Response(
            status: .ok, headers: verifyReceiptHeaders(result, status: status),
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// `Content-Type`, `X-Receipt-Decided-By`, and `X-Receipt-Reason` when the status is not 0.
    func verifyReceiptHeaders(_ result: AttributedVerdict, status: Int) -> HTTPFields {
        var headers: HTTPFields = [.contentType: "application/json"]
        headers[Self.decidedByHeader] = result.decidedBy.rawValue
        // A reason explains a refusal; a status-0 answer has none to give (a note such as the fallback's
        // remote.subscription_expired stays in the verdict, not in the header). A valid receipt refused for
        // its unknown environment is explained by the policy's environment code.
        guard status != 0 else { return headers }
        let verdict = result.verdict
        let unknownEnvironment = VerifyReceiptStatus.status(of: result) == 0 && verdict.environment == nil
        let reason = unknownEnvironment ? Reason.Code.policyEnvironmentRejected : verdict.reason?.code
        if let reason { headers[Self.reasonHeader] = reason.description }
        return headers
    }

    /// The body for `status` (``VerifyReceiptStatus/body(of:status:)`` says which): Apple's own, the receipt
    /// in Apple's shape, or the status alone.
    func verifyReceiptBody(
        _ result: AttributedVerdict, status: Int, call: VerifyReceiptCall, now: ReceiptDate,
        knowledge: LedgerKnowledge? = nil
    ) -> [UInt8] {
        switch VerifyReceiptStatus.body(of: result, status: status) {
        case .apple(let body):
            return body
        case .receipt(let receipt, let environment) where knowledge != nil:
            return Self.verifyReceiptBody(
                receipt, environment: environment.rawValue, requestDate: now,
                knowledge: knowledge ?? LedgerKnowledge(newer: [], renewals: []),
                latestReceipt: call.password != nil ? call.receiptData : nil)
        case .receipt(let receipt, let environment):
            let latest = LatestReceiptInfo.purchases(in: receipt.payload, excludingOld: call.excludeOldTransactions)
            return VerifyReceiptBody.valid(
                payload: receipt.payload, environment: environment.rawValue, requestDate: now,
                latestReceiptInfo: latest.isEmpty ? nil : latest,
                // Apple returns latest_receipt for subscription receipts when given the shared secret.
                latestReceipt: (call.password != nil && !latest.isEmpty) ? call.receiptData : nil)
        case .statusOnly:
            return VerifyReceiptBody.status(status)
        }
    }
}
