public import ReceiptModel

/// The result of verifying one JWS (StoreKit 2 transaction, renewal info, app transaction, or an App Store Server
/// Notification V2 with its nested JWS): the same three outcomes and reasons as a receipt's ``Verdict``.
///
/// A `valid` verdict carries the payload it vouches for (``verifiedPayload``); the others carry whatever decoded.
public struct JWSVerdict: Sendable, CustomStringConvertible {
    /// Whether the JWS provably comes from Apple unmodified and meets the policy.
    public let outcome: Verdict.Outcome
    /// Why; empty only when ``outcome`` is `valid`. The first is the check that decided.
    public let reasons: [Reason]
    /// The decoded JWS, whatever the outcome; `nil` when the bytes did not decode.
    public let jws: CompactJWS?
    /// The payload by kind, whatever the outcome; `nil` when it did not decode or is of no known kind.
    public let payload: JWSPayload?
    /// Production, Sandbox or Xcode, as the payload says.
    public let environment: ReceiptEnvironment?
    /// The validation-time policy that was applied (`receiptCreation` stands for the payload's `signedDate`).
    public let validationTime: ValidationTime
    /// The instant the chain was validated at, when one could be determined.
    public let validationInstant: ReceiptDate?
    /// The subjects (RFC 2253) of the certificate path, leaf first; empty when no path was built.
    public let chain: [String]
    /// A notification's nested JWS (`signedTransactionInfo`, then `signedRenewalInfo`), each verified on its own.
    public let nested: [JWSVerdict]

    public init(
        outcome: Verdict.Outcome, reasons: [Reason], jws: CompactJWS?, payload: JWSPayload?,
        environment: ReceiptEnvironment?, validationTime: ValidationTime, validationInstant: ReceiptDate?,
        chain: [String], nested: [JWSVerdict] = []
    ) {
        self.outcome = outcome
        self.reasons = reasons
        self.jws = jws
        self.payload = payload
        self.environment = environment
        self.validationTime = validationTime
        self.validationInstant = validationInstant
        self.chain = chain
        self.nested = nested
    }

    /// The deciding reason, when the outcome is not `valid`.
    public var reason: Reason? { reasons.first }
    /// `true` when ``outcome`` is `valid`.
    public var isValid: Bool { outcome == .valid }
    /// The payload this verdict vouches for: ``payload`` when ``outcome`` is `valid`, else `nil`.
    public var verifiedPayload: JWSPayload? { outcome == .valid ? payload : nil }
    /// A valid notification's verified nested transaction.
    public var verifiedTransaction: JWSTransaction? {
        for verdict in nested { if case .transaction(let value)? = verdict.verifiedPayload { return value } }
        return nil
    }
    /// A valid notification's verified nested renewal info.
    public var verifiedRenewalInfo: JWSRenewalInfo? {
        for verdict in nested { if case .renewalInfo(let value)? = verdict.verifiedPayload { return value } }
        return nil
    }

    public var description: String {
        var text = "\(outcome)"
        if let reason { text += " (\(reason))" }
        if let payload { text += ", \(payload.kind)" }
        if let environment { text += ", environment \(environment)" }
        text += ", validated at \(validationTime.name)"
        if let validationInstant { text += " \(validationInstant)" }
        return text
    }
}
