public import Logging
import ReceiptModel
public import ReceiptVerification

/// Local first, Apple only when the bytes at hand cannot decide.
///
/// Verifies every receipt locally with a ``ReceiptVerification/ReceiptVerifier``. Only an `inconclusive`
/// local verdict (an iOS 6 receipt, a chain that leaves out an issuer, an unsupported algorithm, no
/// validation instant), or a caller asking
/// for the current state of a subscription the receipt shows as expired, is sent to Apple's verifyReceipt
/// through the optional ``VerifyReceiptClient``. `valid` and `invalid` verdicts are final: a forged or
/// tampered receipt is never "rescued" by Apple. See docs/remote-fallback.md for the whole table.
///
/// `Sendable`; share one instance. With no client, remote is off and every result is decided `local`.
///
/// ```swift
/// let fallback = FallbackVerifier(verifier: ReceiptVerifier(), remote: try VerifyReceiptClient())
/// let result = await fallback.verify(receiptData, request: FallbackRequest(password: secret))
/// result.verdict.outcome; result.decidedBy; VerifyReceiptStatus.status(of: result)
/// ```
public final class FallbackVerifier: Sendable {
    /// The local verifier.
    public let verifier: ReceiptVerifier
    /// Apple's verifyReceipt client; `nil` when remote is off.
    public let remote: VerifyReceiptClient?
    private let logger: Logger

    /// - Parameters:
    ///   - verifier: decides locally.
    ///   - remote: asked only as the decision table says; `nil` turns remote off.
    ///   - logger: receives one debug line per remote decision; never the receipt or the secret.
    public init(
        verifier: ReceiptVerifier, remote: VerifyReceiptClient? = nil,
        logger: Logger = Logger(label: "receipt-fallback")
    ) {
        self.verifier = verifier
        self.remote = remote
        self.logger = logger
    }

    /// Verifies a receipt: locally, then, when the table says so and remote is on, with Apple.
    ///
    /// Never throws: every failure, Apple's included, is a value in the result.
    /// - Parameters:
    ///   - receiptBytes: what the client sent, in any form ``ReceiptModel/ReceiptInput`` accepts (DER/BER,
    ///     base64 text, iOS 6 plist text or its base64). Only the bytes decoded from it (its canonical bytes,
    ///     ``ReceiptModel/ReceiptInput/canonicalBytes(of:)``) are ever sent to Apple, base64-encoded.
    ///   - request: the shared secret, the instant for a subscription question, and overrides.
    public func verify(_ receiptBytes: ArraySlice<UInt8>, request: FallbackRequest = FallbackRequest()) async
        -> AttributedVerdict
    {
        await askApple(verifyLocally(receiptBytes, request: request), request: request)
    }

    /// The first half of ``verify(_:request:)``: recognizes the bytes once, decodes and verifies what was
    /// recognized, keeps those canonical bytes (they, and nothing else, are what Apple may be sent), and says
    /// whether the decision table sends the verdict to Apple (``LocalVerification/trigger``).
    public func verifyLocally(_ receiptBytes: ArraySlice<UInt8>, request: FallbackRequest = FallbackRequest())
        -> LocalVerification
    {
        let canonical: ReceiptInput.CanonicalBytes
        let input: ReceiptInput
        do throws(ReceiptError) {
            canonical = try ReceiptInput.canonicalBytes(of: receiptBytes)
            input = try ReceiptInput(canonical: canonical)
        } catch {
            let time = request.validationTime ?? verifier.configuration.validationTime
            let verdict = Verdict.malformed(error, validationTime: time)
            return LocalVerification(
                verdict: verdict, trigger: Self.trigger(for: verdict, request: request), canonical: nil)
        }
        let verdict = verifier.verify(
            input, validationTime: request.validationTime, policy: request.policy, now: request.now)
        return LocalVerification(
            verdict: verdict, trigger: Self.trigger(for: verdict, request: request), canonical: canonical)
    }

    /// The second half of ``verify(_:request:)``: asks Apple when `local` has a trigger, remote is on and the
    /// request allows it, and combines Apple's answer with the local verdict by the decision table; otherwise the
    /// local verdict stands (``LocalVerification/result``). Never verifies the receipt again.
    public func askApple(_ local: LocalVerification, request: FallbackRequest = FallbackRequest()) async
        -> AttributedVerdict
    {
        let verdict = local.verdict
        guard let trigger = local.trigger, let remote, request.allowsRemote, let canonical = local.canonical else {
            return local.result
        }
        // Exactly the bytes verified above, never the client's wrapping of them (issue 10, class 2).
        let remoteRequest = VerifyReceiptRequest(
            receipt: canonical, password: request.password, excludeOldTransactions: request.excludeOldTransactions,
            startEnvironment: request.startEnvironment)
        let result: AttributedVerdict
        do {
            let response = try await remote.verify(remoteRequest)
            result = combine(verdict, trigger: trigger, response: response, request: request)
        } catch {
            result = Self.unreachable(verdict, trigger: trigger, error: error)
        }
        logger.debug(
            "remote fallback decided",
            metadata: [
                "trigger": "\(trigger)", "outcome": "\(result.verdict.outcome)", "decided_by": "\(result.decidedBy)",
                "status": "\(VerifyReceiptStatus.status(of: result))",
                "reason": "\(result.verdict.reason?.code.description ?? "-")",
            ])
        return result
    }

    /// The decision table's first half: does this local verdict go to Apple?
    static func trigger(for verdict: Verdict, request: FallbackRequest) -> FallbackTrigger? {
        switch verdict.outcome {
        case .invalid:
            return nil
        case .inconclusive:
            return verdict.reason.map { .localInconclusive($0.code) }
        case .valid:
            guard let now = request.subscriptionStateAt, request.password != nil,
                let expiry = newestExpiry(verdict.receipt), expiry < now
            else { return nil }
            return .subscriptionExpiredInReceipt(newestExpiry: expiry)
        }
    }

    /// The latest `expires_date` among the receipt's purchases (iOS 6: `expires-date`).
    static func newestExpiry(_ decoded: ReceiptInput?) -> ReceiptDate? {
        switch decoded {
        case .appReceipt(let receipt)?: receipt.payload.inAppPurchases.compactMap(\.expiresDate).max()
        case .iOS6(let receipt)?: receipt.purchaseInfo.expiresDate
        case nil: nil
        }
    }

    // MARK: - Combining

    /// Apple was needed but gave no usable answer: the local verdict stands, with the remote reason first.
    static func unreachable(_ verdict: Verdict, trigger: FallbackTrigger, error: RemoteError) -> AttributedVerdict {
        var reasons = [Reason(error)]
        if case .subscriptionExpiredInReceipt(let expiry) = trigger {
            reasons.append(
                Reason(
                    .subscriptionExpiredInReceipt,
                    "the receipt's newest expiry \(expiry) is before the instant asked about"))
        }
        return AttributedVerdict(
            verdict: verdict.deciding(
                verdict.outcome, reasons: reasons + verdict.reasons, environment: verdict.environment),
            decidedBy: .local, localVerdict: verdict, trigger: trigger, appleResponse: nil, remoteError: error)
    }

    /// The decision table's second half: what Apple's final answer means.
    func combine(
        _ verdict: Verdict, trigger: FallbackTrigger, response: VerifyReceiptResponse, request: FallbackRequest
    ) -> AttributedVerdict {
        /// The local verdict stands; Apple's answer explains why it could not decide.
        func stands(_ reason: Reason) -> AttributedVerdict {
            AttributedVerdict(
                verdict: verdict.deciding(
                    verdict.outcome, reasons: [reason] + verdict.reasons, environment: verdict.environment),
                decidedBy: .local, localVerdict: verdict, trigger: trigger, appleResponse: response, remoteError: nil)
        }
        /// Apple decided; its environment replaces the local one when it names one.
        func decided(_ outcome: Verdict.Outcome, _ reasons: [Reason]) -> AttributedVerdict {
            let environment = response.effectiveEnvironment.flatMap(ReceiptEnvironment.init(rawValue:))
            return AttributedVerdict(
                verdict: verdict.deciding(outcome, reasons: reasons, environment: environment ?? verdict.environment),
                decidedBy: .remote, localVerdict: verdict, trigger: trigger, appleResponse: response, remoteError: nil)
        }
        // The subscription question only refreshes a receipt already proven genuine: Apple's answer adds
        // renewals when it says 0/21006, and never turns the local `valid` into anything else.
        let refreshing: Bool
        if case .subscriptionExpiredInReceipt = trigger { refreshing = true } else { refreshing = false }

        switch response.status {
        case 0, 21006:
            guard response.receipt != nil else {
                return stands(
                    Reason(
                        Reason.Code(RemoteError.Code.malformedResponse),
                        "Apple answered \(response.status) without a `receipt`"))
            }
            if let mismatch = Self.receiptMismatch(decoded: verdict.receipt, response: response) {
                return stands(mismatch)
            }
            let policy = request.policy ?? verifier.configuration.policy
            let policyReasons = Self.policyReasons(policy, decoded: verdict.receipt, response: response)
            guard policyReasons.isEmpty else {
                return decided(.invalid, policyReasons)
            }
            let notes =
                response.status == 21006
                ? [
                    Reason(
                        .remoteSubscriptionExpired,
                        "Apple: the receipt is genuine; its subscription has expired (21006)")
                ]
                : []
            return decided(.valid, notes)
        case 21003, 21010:
            let reason = Reason(.remoteRejected, "Apple answered \(response.status): the receipt is not authenticated")
            if refreshing { return stands(reason) }
            return decided(.invalid, [reason] + verdict.reasons)
        case 21004:
            return stands(Reason(.remoteSharedSecretRejected, "Apple answered 21004: the shared secret does not match"))
        case 21000:
            return stands(Reason(.remoteRequestRejected, "Apple answered 21000: it could not read the request"))
        default:
            return stands(Reason(.remoteUnexpectedStatus, "Apple answered the unexpected status \(response.status)"))
        }
    }

    /// Apple's answer must describe the receipt that was sent, or it says nothing about it: an endpoint
    /// that answers 0 to anything (a broken proxy, a stand-in, an impostor) must never vouch for a
    /// receipt it did not read. Checked: the answer's shape is the receipt's kind; the bundle id is the
    /// same on both sides (absent on either side is a mismatch); for an app receipt, the set of
    /// `receipt.in_app[].transaction_id` equals the set of the receipt's in-app transaction ids (Apple's
    /// `in_app` lists the purchases of the receipt sent, whatever `exclude-old-transactions` says: that
    /// flag trims `latest_receipt_info` only), every entry on both sides having one; for an iOS 6
    /// receipt, `receipt.transaction_id` equals the purchase-info's `transaction-id`.
    ///
    /// Messages give counts, never identifiers.
    static func receiptMismatch(decoded: ReceiptInput?, response: VerifyReceiptResponse) -> Reason? {
        func mismatch(_ message: String) -> Reason { Reason(.remoteReceiptMismatch, message) }
        switch decoded {
        case nil:
            return mismatch("there is no decoded receipt to hold Apple's answer to")
        case .appReceipt(let receipt)?:
            guard response.shape == .appReceipt else {
                return mismatch("Apple answered with an iOS 6 receipt for an app receipt")
            }
            if let reason = bundleMismatch(local: receipt.payload.bundleID, remote: response.bundleID) {
                return reason
            }
            guard response.receipt?["in_app"]?.arrayValue != nil else {
                return mismatch("Apple's receipt has no in_app array to compare with the receipt's purchases")
            }
            var local: Set<String> = []
            for purchase in receipt.payload.inAppPurchases {
                guard let id = purchase.transactionID else {
                    return mismatch("the receipt has an in-app purchase without a transaction id")
                }
                local.insert(id)
            }
            var remote: Set<String> = []
            for entry in response.inApp {
                guard let id = entry.transactionID else {
                    return mismatch("Apple's in_app has an entry without a transaction_id")
                }
                remote.insert(id)
            }
            guard local == remote else {
                return mismatch(
                    "Apple's in_app names \(remote.count) transaction ids, the receipt \(local.count); "
                        + "\(remote.symmetricDifference(local).count) are on one side only")
            }
            return nil
        case .iOS6(let receipt)?:
            guard response.shape == .ios6 else {
                return mismatch("Apple answered with an app receipt for an iOS 6 receipt")
            }
            if let reason = bundleMismatch(local: receipt.purchaseInfo.bundleID, remote: response.bundleID) {
                return reason
            }
            guard let local = receipt.purchaseInfo.transactionID, let remote = response.receipt?.text("transaction_id"),
                local == remote
            else {
                return mismatch("Apple's transaction_id is not the receipt's transaction-id")
            }
            return nil
        }
    }

    /// Same bundle id on both sides; absent on either side is a mismatch.
    static func bundleMismatch(local: String?, remote: String?) -> Reason? {
        guard let local, let remote else {
            return Reason(
                .remoteReceiptMismatch,
                local == nil
                    ? "the receipt has no bundle id to compare with Apple's" : "Apple's answer has no bundle id")
        }
        guard local == remote else {
            return Reason(.remoteReceiptMismatch, "Apple's answer names bundle id \(remote), the receipt \(local)")
        }
        return nil
    }

    /// The caller's whole policy applied to a receipt Apple vouched for: Apple's bundle id, and the
    /// locally decoded receipt (versions, device hash) in the environment of the endpoint that answered.
    static func policyReasons(
        _ policy: ReceiptPolicy, decoded: ReceiptInput?, response: VerifyReceiptResponse
    ) -> [Reason] {
        var reasons: [Reason] = []
        if let accepted = policy.acceptedBundleIDs, !accepted.contains(response.bundleID ?? "") {
            reasons.append(
                Reason(.policyBundleIDRejected, "policy: bundle id \(response.bundleID ?? "(none)") is not accepted"))
        }
        let environment = response.effectiveEnvironment.flatMap(ReceiptEnvironment.init(rawValue:))
        let local: [Reason]
        switch decoded {
        case .appReceipt(let receipt)?: local = policy.evaluate(receipt.payload, environment: environment)
        case .iOS6(let receipt)?: local = policy.evaluate(receipt, environment: environment)
        case nil: local = []
        }
        // The bundle id was checked against Apple's answer above; the rest comes from the receipt.
        reasons += local.filter { $0.code != .policyBundleIDRejected }
        return reasons
    }
}
