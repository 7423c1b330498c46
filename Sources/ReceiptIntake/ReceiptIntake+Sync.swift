public import Logging
import ReceiptLedger
import ReceiptModel
package import ReceiptRemote
import ReceiptVerification

/// History sync: from a verified receipt (or a transaction id the caller trusts), the customer's whole transaction
/// history from the App Store Server API, every item verified locally and recorded through the ledger.
///
/// Apple's own migration helper reads a transaction id out of a receipt without checking its signature; here the
/// receipt is verified first, and an invalid one is refused before Apple is asked anything.
extension ReceiptIntake {
    /// Syncs one customer's history.
    /// - Throws: ``IntakeError``: `ledgerDisabled`, `serverAPIDisabled`, `bundleIDRequired` (no app configured),
    ///   `unknownApp` (one not configured is named, or several are configured and none is named), `invalidBase64`,
    ///   `receiptNotVerified` (the receipt is not valid: nothing was asked), `transactionNotFound`, `serverAPIFailed`,
    ///   `overloaded`, `ledgerUnavailable`, `digestFailed`.
    public func sync(_ call: SyncCall, logger: Logger) async throws(IntakeError) -> SyncAnswer {
        let ledger = try requireLedger()
        let api = try requireServerAPI()
        try requireConfiguredApps()
        switch call.subject {
        case .transactionID(let id):
            let bundleID = try configuredApp(call.bundleID)
            return try await walkHistory(
                id, bundleID: bundleID, environment: nil, call: call, ledger: ledger, api: api, logger: logger)
        case .receipt(let bytes, let isText):
            let local = try await inSlot {
                await decider.verifyLocally(bytes[...], request: FallbackRequest(now: call.now, allowsRemote: false))
            }
            if isText, local.verdict.decodingError?.code == .invalidBase64 {
                throw IntakeError(.invalidBase64, "receipt_data is not base64 text")
            }
            // The receipt's own verification is audited; its purchases come from the signed history that follows.
            var audit = try LedgerEntry(
                verification: local.result, received: bytes[...], endpoint: call.auditEndpoint, account: call.account,
                time: call.now, catalogue: ledger.catalogue, onConflict: ledger.onConflict)
            audit.transactions = []
            _ = try await record(audit, logger: logger)
            let lookup = try Self.lookup(in: local.verdict, bundleID: call.bundleID)
            let bundleID = try configuredApp(lookup.bundleID)
            guard let id = lookup.transactionID else {
                return SyncAnswer(
                    bundleID: bundleID, transactionID: nil, environment: nil, synced: 0, newTransactionIDs: [],
                    knownTransactionIDs: [], failed: [],
                    note: "the receipt lists no purchase, so there is no transaction id to ask Apple's history about")
            }
            return try await walkHistory(
                id, bundleID: bundleID, environment: lookup.environment, call: call, ledger: ledger, api: api,
                logger: logger)
        }
    }

    /// What a valid receipt says to look up: its app, its environment (signed) and one of its transaction ids.
    /// - Throws: ``IntakeError/Code/receiptNotVerified`` for a receipt that is not valid, is Xcode's, or is another
    ///   app's than the one named.
    static func lookup(in verdict: Verdict, bundleID named: String?) throws(IntakeError) -> (
        bundleID: String, environment: ReceiptEnvironment, transactionID: String?
    ) {
        guard verdict.isValid else {
            let reason = verdict.reason.map { "\($0.code): \($0.message)" } ?? verdict.outcome.rawValue
            throw IntakeError(.receiptNotVerified, "the receipt is not valid (\(reason)); Apple was not asked")
        }
        guard let environment = verdict.environment, environment != .xcode else {
            throw IntakeError(
                .receiptNotVerified, "the receipt is from Xcode's StoreKit testing, which Apple's API does not know")
        }
        let bundleID: String?
        let ids: [String?]
        switch verdict.receipt {
        case .appReceipt(let receipt)?:
            bundleID = receipt.payload.bundleID
            ids = receipt.payload.inAppPurchases.map { $0.transactionID ?? $0.originalTransactionID }
        case .iOS6(let receipt)?:
            bundleID = receipt.purchaseInfo.bundleID
            ids = [receipt.purchaseInfo.transactionID]
        case nil:
            bundleID = nil
            ids = []
        }
        guard let bundleID, named == nil || named == bundleID else {
            throw IntakeError(
                .receiptNotVerified, "the receipt is for \(bundleID ?? "no app"), not \(named ?? "the app named")")
        }
        let id = ids.lazy.compactMap { $0 }.first { LedgerLimits.isIdentifier($0) }
        return (bundleID, environment, id)
    }

    /// Walks the history of `transactionID` and records every verified item.
    private func walkHistory(
        _ transactionID: String, bundleID: String, environment: ReceiptEnvironment?, call: SyncCall, ledger: Ledger,
        api: AppStoreServerAPIClient, logger: Logger
    ) async throws(IntakeError) -> SyncAnswer {
        var synced = 0
        var new: [String] = []
        var known: [String] = []
        var failed: [SyncAnswer.Failure] = []
        let walked = try await recordingPages("the transaction history of \(transactionID)") {
            (page) async throws(RemoteError) in
            try await api.transactionHistory(transactionID, bundleID: bundleID, environment: environment, page: page)
        } record: { (items) async throws(IntakeError) in
            for item in items {
                let entry = try LedgerEntry(
                    jws: item.verdict, received: item.jws, endpoint: call.auditEndpoint, account: call.account,
                    time: call.now, catalogue: ledger.catalogue, onConflict: ledger.onConflict, source: .serverAPI)
                let outcome = try await record(entry, logger: logger)
                guard item.isValid else {
                    failed.append(SyncAnswer.Failure(item, verdict: item.verdict))
                    continue
                }
                if let outcome, outcome.isRejected {
                    let refusal = Self.conflictRefusal(outcome.conflicts, "the purchase belongs")
                    failed.append(
                        SyncAnswer.Failure(index: item.index, reason: "\(refusal.code)", message: refusal.message))
                    continue
                }
                synced += 1
                new += outcome?.newTransactionIDs ?? []
                known += outcome?.knownTransactionIDs ?? []
            }
        }
        logger.info(
            "history synced",
            metadata: [
                "bundle_id": "\(bundleID)", "environment": "\(walked.environment.rawValue)",
                "pages": "\(walked.pages)", "synced": "\(synced)", "new": "\(new.count)", "failed": "\(failed.count)",
            ])
        return SyncAnswer(
            bundleID: bundleID, transactionID: transactionID, environment: walked.environment, synced: synced,
            newTransactionIDs: new, knownTransactionIDs: known, failed: failed, note: nil)
    }

    /// The App Store Server API client, or a refusal for a call that needs one.
    /// - Throws: ``IntakeError/Code/serverAPIDisabled``.
    package func requireServerAPI() throws(IntakeError) -> AppStoreServerAPIClient {
        guard let serverAPI else {
            throw IntakeError(
                .serverAPIDisabled,
                "this server has no App Store Server API key configured (--app-store-key, --app-store-key-id, --app-store-issuer)"
            )
        }
        return serverAPI
    }

    /// The app a call is about: the one named, which must be configured, or the only one configured.
    /// - Throws: ``IntakeError/Code/unknownApp``.
    package func configuredApp(_ named: String?) throws(IntakeError) -> String {
        let configured = decider.policy.acceptedBundleIDs ?? []
        if let named {
            guard configured.contains(named) else {
                throw IntakeError(.unknownApp, "\(named) is not one of the apps this server is configured for")
            }
            return named
        }
        guard configured.count == 1, let only = configured.first else {
            throw IntakeError(.unknownApp, "this server is configured for several apps: name one (bundle_id)")
        }
        return only
    }

    /// A client failure as the intake's refusal: `transactionNotFound` for an id no environment knows,
    /// `serverAPIFailed` naming the client's code otherwise.
    static func serverAPIRefusal(_ error: RemoteError, _ what: String) -> IntakeError {
        if error.code == .notFound {
            return IntakeError(.transactionNotFound, "Apple knows \(what) in no environment: \(error.reason)")
        }
        return IntakeError(
            .serverAPIFailed,
            "the App Store Server API gave no usable answer for \(what) (\(error.code): \(error.reason))")
    }
}
