public import ReceiptModel

/// The result of verifying one JWS (StoreKit 2 transaction, renewal info, app transaction, or an App Store Server
/// Notification V2 with its nested JWS): a ``VerificationResult`` whose subject is the JWS and its payload.
///
/// A `valid` verdict carries the payload it vouches for (``VerificationResult/verifiedPayload``); the others carry
/// whatever decoded.
public typealias JWSVerdict = VerificationResult<JWSSubject>

/// What a JWS decoded into: the compact serialization, its payload by kind, and a notification's nested JWS.
public struct JWSSubject: VerificationSubject {
    /// The decoded JWS; `nil` when the bytes did not decode.
    public let jws: CompactJWS?
    /// The payload by kind; `nil` when it did not decode or is of no known kind.
    public let payload: JWSPayload?
    /// A notification's nested JWS (`signedTransactionInfo`, then `signedRenewalInfo`), each verified on its own.
    public let nested: [JWSVerdict]

    public init(jws: CompactJWS?, payload: JWSPayload?, nested: [JWSVerdict] = []) {
        self.jws = jws
        self.payload = payload
        self.nested = nested
    }

    public var summary: String? { payload.map { "\($0.kind)" } }
}

extension VerificationResult where Subject == JWSSubject {
    public init(
        outcome: Outcome, reasons: [Reason], jws: CompactJWS?, payload: JWSPayload?,
        environment: ReceiptEnvironment?, validationTime: ValidationTime, validationInstant: ReceiptDate?,
        chain: [String], nested: [JWSVerdict] = []
    ) {
        self.init(
            outcome: outcome, reasons: reasons, subject: JWSSubject(jws: jws, payload: payload, nested: nested),
            environment: environment, validationTime: validationTime, validationInstant: validationInstant,
            chain: chain)
    }

    /// The decoded JWS, whatever the outcome; `nil` when the bytes did not decode.
    public var jws: CompactJWS? { subject.jws }
    /// The payload by kind, whatever the outcome; `nil` when it did not decode or is of no known kind.
    public var payload: JWSPayload? { subject.payload }
    /// A notification's nested JWS, each verified on its own.
    public var nested: [JWSVerdict] { subject.nested }
    /// The payload this verdict vouches for: ``payload`` when ``outcome`` is `valid`, else `nil`.
    public var verifiedPayload: JWSPayload? { verifiedSubject?.payload }
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
}
