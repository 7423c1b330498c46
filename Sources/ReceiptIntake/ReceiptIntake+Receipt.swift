public import Logging
import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// An app receipt: verify locally → consult the ledger → (ask Apple) → record → answer.
extension ReceiptIntake {
    /// Verifies an app receipt and records the verification in the ledger, when there is one, before answering.
    ///
    /// The receipt is verified locally exactly once. Under the verifyReceipt contract with a ledger:
    /// - when the fallback would ask Apple (a valid subscription receipt whose subscriptions have lapsed, asked with
    ///   the shared secret), the ledger is read first; when it knows more (``ReceiptSubscriptions``), the local
    ///   verdict answers with it and Apple is not asked; otherwise Apple is;
    /// - for any other valid subscription receipt, when the ledger may hold subscription state, the record that
    ///   follows reads it back in the same transaction.
    ///
    /// Only a status-0 verifyReceipt answer credits anything (a 21007 sends the client to the other endpoint, which
    /// will); the audit entry of another names its status.
    /// - Throws: ``IntakeError`` `overloaded` (no verification slot), `invalidBase64` (``ReceiptCall/isText`` and
    ///   the text is not base64), `ledgerUnavailable` (the ledger could not record it: nothing is answered that it
    ///   does not hold), `digestFailed`.
    ///
    /// Runs on its caller's executor (`nonisolated(nonsending)`), and so do its own steps: the local verification
    /// (with ``FallbackVerifier``, whose local half is synchronous), the ledger consultation and the record up to its
    /// batch's commit. They queue no job of their own; the ledger's batch, a call to Apple and a decider whose local
    /// half is itself asynchronous still do. The verification is CPU work of tens of microseconds (about a millisecond
    /// for a receipt of hundreds of purchases): a caller on an actor whose other work must not wait that long calls it
    /// from a task off that actor.
    nonisolated(nonsending) public func verify(
        _ call: ReceiptCall, logger: Logger
    ) async throws(IntakeError) -> ReceiptAnswer {
        let local = try await inSlot { await decider.verifyLocally(call.receiptData, request: call.request) }
        // Text that is not base64 is a transport mistake, not a verdict about a receipt.
        if call.isText, local.verdict.decodingError?.code == .invalidBase64 {
            throw IntakeError(.invalidBase64, "receipt_data is not base64 text")
        }
        let (decided, consultation) = try await consultLedger(local, call, logger: logger)
        let status = status(of: decided, call.contract)
        guard let ledger else {
            return ReceiptAnswer(result: decided, status: status, ledger: nil, supplement: nil)
        }
        // Only a status-0 answer credits anything: then a receipt verified locally has its transactions made only if
        // the ledger does not know the receipt already.
        var entry = try LedgerEntry(
            verification: decided, received: call.receiptData, endpoint: call.auditEndpoint, account: call.account,
            time: call.now, onConflict: ledger.onConflict, transactions: [])
        let recorder = TransactionRecorder(time: call.now, catalogue: ledger.catalogue)
        var deferred: DeferredTransactions?
        if case .verifyReceipt = call.contract, status != 0 {
            entry.reason = entry.reason ?? .verifyReceiptStatus(status)
        } else {
            deferred = DeferredTransactions(verification: decided, entry: entry, ledger: ledger, recorder: recorder)
            if deferred == nil { entry.transactions = recorder.transactions(of: decided) }
        }
        entry.readsSubscriptions = consultation.readsSubscriptions
        let outcome = try await record(entry, deferred, logger: logger)
        let supplement = consultation.supplement(after: outcome)
        guard let outcome, outcome.isRejected else {
            return ReceiptAnswer(result: decided, status: status, ledger: outcome, supplement: supplement)
        }
        let refused = AttributedVerdict(
            verdict: decided.verdict.adding(Self.conflictRefusal(outcome.conflicts, "the receipt's purchases belong")),
            decidedBy: decided.decidedBy, localVerdict: decided.localVerdict, trigger: decided.trigger,
            appleResponse: decided.appleResponse, remoteError: decided.remoteError)
        return ReceiptAnswer(
            result: refused, status: self.status(of: refused, call.contract), ledger: outcome, supplement: supplement)
    }

    /// verifyReceipt's status for `result` under `contract`: the endpoint's environment contract for verifyReceipt,
    /// the verdict's own status for `/v1/verify`.
    func status(of result: AttributedVerdict, _ contract: ReceiptCall.Contract) -> Int {
        switch contract {
        case .verifyReceipt(let endpoint):
            VerifyReceiptStatus.status(
                of: result, endpoint: endpoint, acceptsAnyEnvironment: rules.acceptsAnyEnvironment)
        case .verdict:
            VerifyReceiptStatus.status(of: result)
        }
    }

    /// Between the fallback's two halves: answers from the ledger's knowledge when it knows more than a receipt
    /// Apple would be asked about, asks Apple otherwise (``verify(_:logger:)``).
    nonisolated(nonsending) func consultLedger(_ local: LocalVerification, _ call: ReceiptCall, logger: Logger)
        async throws(IntakeError) -> (AttributedVerdict, LedgerConsultation)
    {
        // A verdict Apple will not be asked about is final as it is: no second slot, no call.
        let ask: nonisolated(nonsending) () async throws(IntakeError) -> AttributedVerdict = {
            guard local.trigger != nil, call.request.allowsRemote else { return local.result }
            return try await inSlot { await decider.askApple(local, request: call.request) }
        }
        guard let ledger, case .verifyReceipt = call.contract else { return (try await ask(), .none) }
        // A lapsed subscription goes to the App Store Server API when there is one: signed answers, no fallback needed.
        let asksStatuses = serverAPI != nil && Self.lapsed(local)
        let wouldAskApple = local.trigger != nil && call.request.allowsRemote
        // Without a reason to read the ledger, the receipt's subscriptions are not even listed.
        guard wouldAskApple || asksStatuses || ledger.mayHoldSubscriptionState else { return (local.result, .none) }
        guard let subscriptions = ReceiptSubscriptions(local.verdict) else {
            return wouldAskApple ? (try await ask(), .none) : (local.result, .none)
        }
        // Not asking Apple means the ledger may hold subscription state (the guard above): the record reads it back.
        guard wouldAskApple || asksStatuses else { return (local.result, .withRecord(subscriptions)) }
        do {
            let held = try await ledger.subscriptions(originalTransactionIDs: subscriptions.originalTransactionIDs)
            if let supplement = subscriptions.supplement(held) { return (local.result, .read(supplement)) }
        } catch {
            // The usual path decides; the ledger write that follows reports the store's state.
            logger.warning("ledger read failed; answering from the receipt", metadata: ["error": "\(error)"])
        }
        if asksStatuses, let serverAPI,
            try await recordSubscriptionStatuses(
                local, subscriptions: subscriptions, api: serverAPI, ledger: ledger, call: call, logger: logger)
        {
            // What Apple signed is in the ledger now; the receipt's own record reads it back in its commit.
            return (local.result, .withRecord(subscriptions))
        }
        return (try await ask(), .none)
    }
}
