import Hummingbird
import Logging
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// `POST /v1/verify` with `{"signed_transaction": "<jws>", "account": …}`: a StoreKit 2 transaction, verified
/// locally (Apple is never asked about a JWS) and recorded in the ledger as a receipt's transactions are.
extension ReceiptRoutes {
    func verifySignedTransaction(_ text: [UInt8], options: V1Options, context: some RequestContext)
        async throws(ServerError) -> Response
    {
        guard sharedSecretAccepts(options.password) else {
            throw ServerError(.sharedSecretMismatch, "password is not this server's shared secret")
        }
        try requireConfiguredApps()
        let now = configuration.clock()
        let time = try options.validationTime(policy: configuration.validationTime)
        let policy = try options.policy(narrowing: decider.policy)
        // signed_transaction holds a transaction: the member says so, whatever else the payload carries.
        let verdict = try verifyJWS(text, kind: .transaction, validationTime: time, policy: policy, now: now)
        var outcome: LedgerOutcome?
        var answered = verdict
        if let ledger {
            let entry = LedgerEntry(
                jws: verdict, received: text, endpoint: "/v1/verify", account: options.account, time: now,
                catalogue: ledger.catalogue, onConflict: ledger.onConflict)
            outcome = try await recordEntry(entry, context: context)
            if let outcome, outcome.isRejected {
                answered = verdict.adding(Self.conflictRefusal(outcome.conflicts, "the purchase belongs"))
            }
        }
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        JWSVerdictJSON.write(answered, to: &writer)
        if let outcome {
            writer.key("ledger")
            LedgerJSON.write(outcome: outcome, to: &writer)
        }
        writer.endObject()
        return Self.jsonResponse(.ok, body: writer.bytes)
    }

    /// Refuses JWS and notifications on a server configured for no app: they change what the ledger holds.
    /// - Throws: ``ServerError`` ``ServerError/Code/bundleIDRequired``.
    func requireConfiguredApps() throws(ServerError) {
        guard decider.policy.acceptedBundleIDs?.isEmpty == false else {
            throw ServerError(
                .bundleIDRequired,
                "this server takes StoreKit 2 JWS and notifications only for the apps it is configured for (--bundle-id)"
            )
        }
    }

    /// Verifies a JWS in one of the in-flight slots; refuses at once when none is free.
    func verifyJWS(
        _ text: [UInt8], kind: JWSPayload.Kind, validationTime: ValidationTime?, policy: ReceiptPolicy?,
        now: ReceiptDate
    ) throws(ServerError) -> JWSVerdict {
        guard limiter.tryAcquire() else {
            throw ServerError(.overloaded, "more than \(limiter.limit) requests in flight")
        }
        defer { limiter.release() }
        return decider.jwsVerifier.verifyJWS(
            text[...], kind: kind, validationTime: validationTime, policy: policy, now: now)
    }

    /// Records `entry`; a failed write withholds the answer (503), so nothing is reported that is not recorded.
    func recordEntry(_ entry: LedgerEntry, context: some RequestContext) async throws(ServerError) -> LedgerOutcome? {
        guard let ledger else { return nil }
        do {
            return try await ledger.record(entry)
        } catch {
            context.logger.error("ledger write failed", metadata: ["error": "\(error)"])
            throw ServerError(.ledgerUnavailable, "the ledger could not record this verification; try again")
        }
    }
}
