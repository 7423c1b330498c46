import Logging
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// Renewals without verifyReceipt: for a valid receipt whose subscriptions lapsed, a server with the App Store
/// Server API asks Get All Subscription Statuses (one call covers every subscription group of the customer), records
/// what Apple signed, and answers from the ledger as after a `DID_RENEW`. Its answers are signed, so this needs no
/// remote fallback; verifyReceipt stays for what only it answers.
extension ReceiptIntake {
    /// Whether `local` is a valid receipt whose subscriptions lapsed before the instant asked about.
    static func lapsed(_ local: LocalVerification) -> Bool {
        if case .subscriptionExpiredInReceipt? = local.trigger { return true }
        return false
    }

    /// Asks Apple's subscription statuses about the customer of `local`'s receipt and records every verified
    /// transaction and renewal info.
    /// - Returns: `true` when Apple answered (what it signed is now in the ledger), `false` when it could not be
    ///   asked or gave no usable answer (the caller falls back as before).
    func recordSubscriptionStatuses(
        _ local: LocalVerification, subscriptions: ReceiptSubscriptions, api: AppStoreServerAPIClient, ledger: Ledger,
        call: ReceiptCall, logger: Logger
    ) async throws(IntakeError) -> Bool {
        guard case .appReceipt(let receipt)? = local.verdict.receipt, let bundleID = receipt.payload.bundleID,
            let environment = local.verdict.environment, environment != .xcode,
            let id = subscriptions.originalTransactionIDs.first
        else { return false }
        let answer: (environment: ReceiptEnvironment, subscriptions: [SignedSubscriptionStatus])
        do throws(RemoteError) {
            answer = try await api.subscriptionStatuses(id, bundleID: bundleID, environment: environment)
        } catch {
            logger.warning(
                "subscription statuses unavailable; falling back", metadata: ["code": "\(error.code)"])
            return false
        }
        let endpoint = call.auditEndpoint + " (subscription statuses)"
        for status in answer.subscriptions {
            for item in [status.transaction] + (status.renewal.map { [$0] } ?? []) {
                let entry = try LedgerEntry(
                    jws: item.verdict, received: item.jws, endpoint: endpoint, account: nil, time: call.now,
                    catalogue: ledger.catalogue, onConflict: .report, source: .serverAPI)
                _ = try await record(entry, logger: logger)
            }
        }
        logger.debug(
            "subscription statuses recorded",
            metadata: ["subscriptions": "\(answer.subscriptions.count)", "environment": "\(answer.environment)"])
        return true
    }
}
