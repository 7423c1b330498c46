public import Logging
public import ReceiptLedger
import ReceiptModel
public import ReceiptVerification

/// A StoreKit 2 signed transaction: verified locally (Apple is never asked about a JWS) and recorded in the
/// ledger as a receipt's transactions are.
extension ReceiptIntake {
    /// Verifies a signed transaction and records it, when there is a ledger.
    /// - Returns: the verdict (turned `invalid` with `ledger.conflict` when the ledger refused a conflict) and the
    ///   ledger's outcome.
    /// - Throws: ``IntakeError`` `bundleIDRequired` (no app configured), `overloaded`, `ledgerUnavailable`,
    ///   `digestFailed`.
    public func verifySignedTransaction(_ call: SignedTransactionCall, logger: Logger)
        async throws(IntakeError) -> (verdict: JWSVerdict, ledger: LedgerOutcome?)
    {
        try requireConfiguredApps()
        // signed_transaction holds a transaction: the member says so, whatever else the payload carries.
        let verdict = try await inSlot {
            decider.jwsVerifier.verifyJWS(
                call.jws[...], kind: .transaction, validationTime: call.validationTime, policy: call.policy,
                now: call.now)
        }
        guard let ledger else { return (verdict, nil) }
        let entry = try LedgerEntry(
            jws: verdict, received: call.jws, endpoint: call.auditEndpoint, account: call.account, time: call.now,
            catalogue: ledger.catalogue, onConflict: ledger.onConflict)
        let outcome = try await record(entry, logger: logger)
        guard let outcome, outcome.isRejected else { return (verdict, outcome) }
        return (verdict.adding(Self.conflictRefusal(outcome.conflicts, "the purchase belongs")), outcome)
    }

    /// Refuses JWS and notifications on a server configured for no app: they change what the ledger holds.
    /// - Throws: ``IntakeError/Code/bundleIDRequired``.
    package func requireConfiguredApps() throws(IntakeError) {
        guard decider.policy.acceptedBundleIDs?.isEmpty == false else {
            throw IntakeError(
                .bundleIDRequired,
                "this server takes StoreKit 2 JWS and notifications only for the apps it is configured for (--bundle-id)"
            )
        }
    }
}
