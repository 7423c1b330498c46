import Logging
public import ReceiptLedger
import ReceiptModel
public import ReceiptRemote
import ReceiptVerification

/// The application: for each input, verify → consult the ledger → (ask Apple) → record → a typed answer.
///
/// Transport-free: every call takes values and returns one (a verdict, who decided, the ledger's outcome, what the
/// ledger knows), never an HTTP response; the server parses, calls and renders, and `verify-local` uses the same
/// verification without a ledger. The inputs:
/// - an app receipt (``verify(_:logger:)``: Apple's verifyReceipt and `/v1/verify`);
/// - a StoreKit 2 signed transaction (``verifySignedTransaction(_:logger:)``);
/// - an App Store Server Notification, V2 (``receiveNotification(_:now:logger:)``) and V1
///   (``receiveNotification(_:now:logger:)-(NotificationV1Call,_,_)``).
///
/// Every verification holds one of the in-flight slots (``InFlightLimiter``) while it computes; a call that finds
/// none free is refused at once (``IntakeError/Code/overloaded``). Ledger writes wait outside the slots.
public struct ReceiptIntake: Sendable {
    /// Verifies receipts (locally, then Apple as the fallback's table says) and JWS (locally only).
    public let decider: any ReceiptDecider
    /// The ledger each verification is recorded in; `nil` runs without one.
    public let ledger: Ledger?
    /// The operator's rules: the shared secret, the environment contract, the notification policy.
    public let rules: IntakeRules
    /// The App Store Server API, when the operator configured a key: history sync, subscription statuses instead of
    /// verifyReceipt for lapsed subscriptions, notification backfill. Its verifier should be ``decider``'s.
    public let serverAPI: AppStoreServerAPIClient?
    /// The in-flight verification slots.
    package let slots: InFlightLimiter

    public init(
        decider: any ReceiptDecider, ledger: Ledger? = nil, rules: IntakeRules, maximumInFlight: Int,
        serverAPI: AppStoreServerAPIClient? = nil
    ) {
        self.decider = decider
        self.ledger = ledger
        self.rules = rules
        self.serverAPI = serverAPI
        self.slots = InFlightLimiter(limit: maximumInFlight)
    }

    /// Runs `body` in one of the in-flight slots; refuses at once when none is free.
    /// - Throws: ``IntakeError/Code/overloaded``.
    nonisolated(nonsending) func inSlot<T>(
        _ body: nonisolated(nonsending) () async -> T
    ) async throws(IntakeError) -> T {
        guard slots.tryAcquire() else {
            throw IntakeError(.overloaded, "more than \(slots.limit) requests in flight")
        }
        defer { slots.release() }
        return await body()
    }

    /// The ledger, or a refusal for a call that needs one.
    /// - Throws: ``IntakeError/Code/ledgerDisabled``.
    package func requireLedger() throws(IntakeError) -> Ledger {
        guard let ledger else { throw IntakeError(.ledgerDisabled, "this server runs without a ledger") }
        return ledger
    }

    /// Records `entry`; a failed write withholds the answer, so nothing is reported that is not recorded.
    /// - Throws: ``IntakeError/Code/ledgerUnavailable``.
    /// - Parameter deferred: how to make the transactions of a receipt verified locally, which `entry` then lacks:
    ///   made only when the ledger does not know the receipt.
    nonisolated(nonsending) func record(
        _ entry: LedgerEntry, _ deferred: DeferredTransactions? = nil, logger: Logger
    ) async throws(IntakeError) -> LedgerOutcome? {
        guard let ledger else { return nil }
        do {
            guard let deferred else { return try await ledger.record(entry) }
            return try await ledger.record(entry, receiptKey: deferred.receiptKey, derive: deferred.derive)
        } catch {
            logger.error("ledger write failed", metadata: ["error": "\(error)"])
            throw IntakeError(.ledgerUnavailable, "the ledger could not record this verification; try again")
        }
    }

    /// Why the ledger refused a verification (``ConflictPolicy/reject``): its purchases belong to other accounts.
    /// - Parameter what: the refused purchases, in words (`the receipt's purchases belong`).
    static func conflictRefusal(_ conflicts: [LedgerConflict], _ what: String) -> Reason {
        let owners = Set(conflicts.map(\.owner)).sorted().joined(separator: ", ")
        return Reason(.ledgerConflict, "\(what) to another account (\(owners)); this server refuses conflicts")
    }
}
