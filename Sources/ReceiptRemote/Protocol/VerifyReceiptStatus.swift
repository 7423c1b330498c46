package import ReceiptModel
public import ReceiptVerification

/// verifyReceipt's `status` for a verdict: the one place it is computed, for the CLI, `/v1/verify` and
/// both verifyReceipt routes (`docs/receipt-format.md` §4, docs/remote-fallback.md).
public enum VerifyReceiptStatus {
    /// 21000: the request was not one verifyReceipt reads (bad JSON, no `receipt-data`, a body too large or
    /// too slow), refused before any verification.
    public static let malformedRequest = 21000
    /// 21004: the request's `password` is not the app's shared secret, refused before any verification.
    public static let sharedSecretMismatch = 21004
    /// 21005: the server cannot answer now (too many requests in flight), refused before any verification.
    public static let unavailable = 21005

    /// The status to answer for `result`.
    ///
    /// - Decided locally without asking Apple (or Apple's answer was only a refresh of a valid receipt):
    ///   0 valid, 21002 malformed receipt data, 21003 for every other invalid or inconclusive verdict.
    /// - Decided locally after Apple was asked for an inconclusive receipt and gave no answer that may
    ///   decide: 21004 when Apple refused the shared secret, else 21005 ("try again later").
    /// - Decided by Apple: Apple's own status (0, 21006, 21003, 21010), or 21003 when Apple vouched for
    ///   the receipt but the operator's policy refuses it.
    ///
    /// With `endpoint` (the verifyReceipt URL called), a status 0 also answers Apple's environment
    /// contract: 21007 for a sandbox or Xcode receipt on the production endpoint, 21008 for a production
    /// receipt on the sandbox endpoint, unless `acceptsAnyEnvironment`; and 21003 on both for a receipt
    /// whose environment is unknown (no receipt type), which neither endpoint can claim, and for a locally
    /// valid receipt that is not an app receipt (an iOS 6 receipt, whose unsigned environment entry cannot be
    /// trusted): those endpoints can render only an app receipt or Apple's own answer.
    public static func status(
        of result: AttributedVerdict, endpoint: ReceiptEnvironment? = nil, acceptsAnyEnvironment: Bool = false
    ) -> Int {
        let verdict = result.verdict
        let status: Int
        switch (result.decidedBy, verdict.outcome) {
        case (.remote, .valid):
            status = result.appleResponse?.status ?? 0
        case (.remote, _):
            let apple = result.appleResponse?.status
            status = apple == 21003 || apple == 21010 ? apple ?? 21003 : 21003
        case (.local, .valid):
            status = 0
        case (.local, .inconclusive) where result.askedApple:
            status = result.appleResponse?.status == 21004 ? 21004 : 21005
        case (.local, .invalid) where verdict.reason?.code == .receiptMalformed:
            status = 21002
        case (.local, _):
            status = 21003
        }
        guard status == 0, let endpoint else { return status }
        guard let environment = verdict.environment else { return 21003 }
        if result.decidedBy == .local, !verdict.isAppReceipt { return 21003 }
        if acceptsAnyEnvironment { return 0 }
        switch (endpoint, environment) {
        case (.production, .sandbox), (.production, .xcode): return 21007
        case (.sandbox, .production): return 21008
        default: return 0
        }
    }

    /// What a verifyReceipt endpoint's body holds for a status computed by
    /// ``status(of:endpoint:acceptsAnyEnvironment:)``.
    package enum Body {
        /// Apple decided and answered this status: its body, passed through unchanged.
        case apple([UInt8])
        /// Status 0 decided locally: the app receipt, rendered in Apple's shape for this environment.
        case receipt(AppReceipt, ReceiptEnvironment)
        /// Only `{"status": N}`.
        case statusOnly
    }

    /// The body for `status` (the endpoint's status of `result`).
    package static func body(of result: AttributedVerdict, status: Int) -> Body {
        // Apple's own status is the status answered only when Apple decided and no environment rule changed it.
        if result.decidedBy == .remote, let apple = result.appleResponse, apple.status == status {
            return .apple(apple.body)
        }
        if status == 0, result.decidedBy == .local, let environment = result.verdict.environment,
            case .appReceipt(let receipt)? = result.verdict.receipt
        {
            return .receipt(receipt, environment)
        }
        return .statusOnly
    }
}
