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
/// let result = await fallback.verify(receiptBytes, request: FallbackRequest(password: secret))
/// result.outcome; result.decidedBy; result.status
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
    public func verify(_ receiptBytes: [UInt8], request: FallbackRequest = FallbackRequest()) async -> FallbackResult {
        let (canonical, decoded, verdict) = verifyLocally(receiptBytes, request: request)
        guard let trigger = Self.trigger(for: verdict, decoded: decoded, request: request) else {
            return Self.local(verdict, decoded: decoded)
        }
        guard let remote, let canonical else {
            return Self.local(verdict, decoded: decoded, trigger: trigger)
        }
        // Exactly the bytes verified above, never the client's wrapping of them (issue 10, class 2).
        let remoteRequest = VerifyReceiptRequest(
            receipt: canonical, password: request.password, excludeOldTransactions: request.excludeOldTransactions,
            startEnvironment: request.startEnvironment)
        let result: FallbackResult
        do {
            let response = try await remote.verify(remoteRequest)
            result = combine(verdict, decoded: decoded, trigger: trigger, response: response, request: request)
        } catch {
            result = Self.unreachable(verdict, decoded: decoded, trigger: trigger, error: error)
        }
        logger.debug(
            "remote fallback decided",
            metadata: [
                "trigger": "\(trigger)", "outcome": "\(result.outcome)", "decided_by": "\(result.decidedBy)",
                "status": "\(result.status)", "reason": "\(result.reason?.code.description ?? "-")",
            ])
        return result
    }

    // MARK: - Local

    /// Recognizes the bytes once, decodes and verifies what was recognized, and keeps those canonical
    /// bytes: they, and nothing else, are what Apple may be sent.
    private func verifyLocally(_ bytes: [UInt8], request: FallbackRequest)
        -> (ReceiptInput.CanonicalBytes?, ReceiptInput?, Verdict)
    {
        let canonical: ReceiptInput.CanonicalBytes
        let input: ReceiptInput
        do throws(ReceiptError) {
            canonical = try ReceiptInput.canonicalBytes(of: bytes[...])
            input = try ReceiptInput(canonical: canonical)
        } catch {
            let time = request.validationTime ?? verifier.configuration.validationTime
            return (nil, nil, Verdict.malformed(error, validationTime: time))
        }
        return (canonical, input, verifier.verify(input, validationTime: request.validationTime, policy: request.policy))
    }

    /// The decision table's first half: does this local verdict go to Apple?
    static func trigger(for verdict: Verdict, decoded: ReceiptInput?, request: FallbackRequest) -> FallbackTrigger? {
        switch verdict.outcome {
        case .invalid:
            return nil
        case .inconclusive:
            return verdict.reason.map { .localInconclusive($0.code) }
        case .valid:
            guard let now = request.subscriptionStateAt, request.password != nil,
                let expiry = newestExpiry(decoded), expiry < now
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

    static func local(_ verdict: Verdict, decoded: ReceiptInput?, trigger: FallbackTrigger? = nil) -> FallbackResult {
        FallbackResult(
            outcome: verdict.outcome, decidedBy: .local, status: verdict.status,
            reasons: verdict.reasons.map(FallbackReason.init),
            localVerdict: verdict, decoded: decoded, trigger: trigger, remoteResponse: nil, remoteError: nil)
    }

    // MARK: - Combining

    /// Apple was needed but gave no usable answer: the local verdict stands, with the remote reason first.
    static func unreachable(_ verdict: Verdict, decoded: ReceiptInput?, trigger: FallbackTrigger, error: RemoteError)
        -> FallbackResult
    {
        var reasons = [FallbackReason(error)]
        if case .subscriptionExpiredInReceipt(let expiry) = trigger {
            reasons.append(
                FallbackReason(
                    .subscriptionExpiredInReceipt,
                    "the receipt's newest expiry \(expiry) is before the instant asked about"))
        }
        reasons += verdict.reasons.map(FallbackReason.init)
        // An inconclusive receipt that Apple could not settle: "temporarily unable", try again later.
        let status = verdict.outcome == .inconclusive ? 21005 : verdict.status
        return FallbackResult(
            outcome: verdict.outcome, decidedBy: .local, status: status, reasons: reasons, localVerdict: verdict,
            decoded: decoded, trigger: trigger, remoteResponse: nil, remoteError: error)
    }

    /// The decision table's second half: what Apple's final answer means.
    func combine(
        _ verdict: Verdict, decoded: ReceiptInput?, trigger: FallbackTrigger, response: VerifyReceiptResponse,
        request: FallbackRequest
    ) -> FallbackResult {
        func result(_ outcome: Verdict.Outcome, _ decidedBy: DecisionSource, status: Int, _ reasons: [FallbackReason])
            -> FallbackResult
        {
            FallbackResult(
                outcome: outcome, decidedBy: decidedBy, status: status, reasons: reasons, localVerdict: verdict,
                decoded: decoded, trigger: trigger, remoteResponse: response, remoteError: nil)
        }
        let localReasons = verdict.reasons.map(FallbackReason.init)
        // The subscription question only refreshes a receipt already proven genuine: Apple's answer adds
        // renewals when it says 0/21006, and never turns the local `valid` into anything else.
        let refreshing: Bool
        if case .subscriptionExpiredInReceipt = trigger { refreshing = true } else { refreshing = false }

        switch response.status {
        case 0, 21006:
            guard response.receipt != nil else {
                let reason = FallbackReason(
                    Code(RemoteError.Code.malformedResponse), "Apple answered \(response.status) without a `receipt`")
                return result(
                    verdict.outcome, .local, status: refreshing ? verdict.status : 21005, [reason] + localReasons)
            }
            if let mismatch = Self.receiptMismatch(decoded: decoded, response: response) {
                return result(
                    verdict.outcome, .local, status: refreshing ? verdict.status : 21005, [mismatch] + localReasons)
            }
            let policy = request.policy ?? verifier.configuration.policy
            let policyReasons = Self.policyReasons(policy, decoded: decoded, response: response)
            guard policyReasons.isEmpty else {
                return result(.invalid, .remote, status: 21003, policyReasons)
            }
            let notes =
                response.status == 21006
                ? [
                    FallbackReason(
                        .subscriptionExpired, "Apple: the receipt is genuine; its subscription has expired (21006)")
                ]
                : []
            return result(.valid, .remote, status: response.status, notes)
        case 21003, 21010:
            let reason = FallbackReason(
                .rejected, "Apple answered \(response.status): the receipt is not authenticated")
            if refreshing { return result(verdict.outcome, .local, status: verdict.status, [reason] + localReasons) }
            return result(.invalid, .remote, status: response.status, [reason] + localReasons)
        case 21004:
            let reason = FallbackReason(.sharedSecretRejected, "Apple answered 21004: the shared secret does not match")
            return result(verdict.outcome, .local, status: refreshing ? verdict.status : 21004, [reason] + localReasons)
        case 21000:
            let reason = FallbackReason(.requestRejected, "Apple answered 21000: it could not read the request")
            return result(verdict.outcome, .local, status: refreshing ? verdict.status : 21005, [reason] + localReasons)
        default:
            let reason = FallbackReason(.unexpectedStatus, "Apple answered the unexpected status \(response.status)")
            return result(verdict.outcome, .local, status: refreshing ? verdict.status : 21005, [reason] + localReasons)
        }
    }

    private typealias Code = FallbackReason.Code

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
    static func receiptMismatch(decoded: ReceiptInput?, response: VerifyReceiptResponse) -> FallbackReason? {
        func mismatch(_ message: String) -> FallbackReason { FallbackReason(.receiptMismatch, message) }
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
    static func bundleMismatch(local: String?, remote: String?) -> FallbackReason? {
        guard let local, let remote else {
            return FallbackReason(
                .receiptMismatch,
                local == nil ? "the receipt has no bundle id to compare with Apple's" : "Apple's answer has no bundle id")
        }
        guard local == remote else {
            return FallbackReason(.receiptMismatch, "Apple's answer names bundle id \(remote), the receipt \(local)")
        }
        return nil
    }

    /// The caller's whole policy applied to a receipt Apple vouched for: Apple's bundle id, and the
    /// locally decoded receipt (versions, device hash) in the environment of the endpoint that answered.
    static func policyReasons(
        _ policy: ReceiptPolicy, decoded: ReceiptInput?, response: VerifyReceiptResponse
    ) -> [FallbackReason] {
        var reasons: [FallbackReason] = []
        if let accepted = policy.acceptedBundleIDs, !accepted.contains(response.bundleID ?? "") {
            reasons.append(
                FallbackReason(
                    Reason(
                        .policyBundleIDRejected, "policy: bundle id \(response.bundleID ?? "(none)") is not accepted")))
        }
        let environment = response.effectiveEnvironment.flatMap(ReceiptEnvironment.init(rawValue:))
        let local: [Reason]
        switch decoded {
        case .appReceipt(let receipt)?: local = policy.evaluate(receipt.payload, environment: environment)
        case .iOS6(let receipt)?: local = policy.evaluate(receipt, environment: environment)
        case nil: local = []
        }
        // The bundle id was checked against Apple's answer above; the rest comes from the receipt.
        reasons += local.filter { $0.code != .policyBundleIDRejected }.map(FallbackReason.init)
        return reasons
    }
}
