internal import ReceiptCrypto
public import ReceiptModel

extension ReceiptVerifier {
    /// Verifies a StoreKit 2 JWS (transaction, renewal info, app transaction) or an App Store Server Notification
    /// V2 `signedPayload` locally, offline, in the order Apple's libraries do and then some:
    ///
    /// 1. the compact serialization decodes (`CompactJWS` in ReceiptModel, bounded) and the payload is of a known kind;
    /// 2. `alg` is ES256: anything else (`none`, HS256, RS256) is `invalid`;
    /// 3. `x5c` holds three certificates, each an EC key on P-256 or P-384 (screened before OpenSSL parses them);
    /// 4. the path leaf → intermediate → a trusted root (Apple Root CA - G3 pinned by fingerprint, or an extra
    ///    root) validates at the validation instant: the payload's `signedDate` by default (``ValidationTime/receiptCreation``),
    ///    or now, or a fixed instant; from the verified-chain cache when this chain validated before;
    /// 5. Apple's markers: leaf 1.2.840.113635.100.6.11.1, intermediate 1.2.840.113635.100.6.2.1;
    /// 6. the ES256 signature over the signing input, with the leaf's P-256 key;
    /// 7. the policy: bundle id, environment, app Apple id, maximum age against `now`;
    /// 8. for a notification, its nested `signedTransactionInfo` and `signedRenewalInfo`, each the same way and
    ///    about the same app and environment.
    ///
    /// An Xcode-signed JWS (one self-signed certificate, environment `Xcode`) is trusted only with the Xcode opt-in
    /// (``TrustAnchors/allowsXcodeStoreKitTesting``), and then only as a signature by its own certificate.
    ///
    /// Never throws: undecodable input is `invalid` with ``Reason/Code/jwsMalformed``.
    /// - Parameters:
    ///   - text: the JWS (white space or quotes around it are ignored).
    ///   - validationTime: overrides ``Configuration/validationTime`` for this call.
    ///   - policy: overrides ``Configuration/policy`` for this call.
    ///   - now: the instant "now" stands for (validation time `now`, maximum age); `nil` reads the configured clock,
    ///     and only when one of those needs it.
    public func verifyJWS(
        _ text: ArraySlice<UInt8>, validationTime: ValidationTime? = nil, policy: ReceiptPolicy? = nil,
        now: ReceiptDate? = nil
    ) -> JWSVerdict {
        let timePolicy = validationTime ?? configuration.validationTime
        let policy = policy ?? configuration.policy
        let jws: CompactJWS
        do throws(JWSError) {
            jws = try CompactJWS(text)
        } catch {
            return JWSVerdict(
                outcome: .invalid, reasons: [Reason(.jwsMalformed, "jws: \(error.reason) (\(error.code))")], jws: nil,
                payload: nil, environment: nil, validationTime: timePolicy, validationInstant: nil, chain: [])
        }
        return verify(jws, validationTime: timePolicy, policy: policy, now: now, depth: 0)
    }

    /// Verifies a JWS held in a string; see ``verifyJWS(_:validationTime:policy:now:)-(ArraySlice<UInt8>,_,_,_)``.
    public func verifyJWS(
        _ text: String, validationTime: ValidationTime? = nil, policy: ReceiptPolicy? = nil, now: ReceiptDate? = nil
    ) -> JWSVerdict {
        verifyJWS(Array(text.utf8)[...], validationTime: validationTime, policy: policy, now: now)
    }

    /// The environment a JWS payload names.
    static func jwsEnvironment(_ name: String?) -> ReceiptEnvironment? {
        switch name {
        case "Production": .production
        case "Sandbox": .sandbox
        case "Xcode", "LocalTesting": .xcode
        default: nil
        }
    }

    private func verify(
        _ jws: CompactJWS, validationTime timePolicy: ValidationTime, policy: ReceiptPolicy, now: ReceiptDate?,
        depth: Int
    ) -> JWSVerdict {
        let payload = JWSPayload(jws.payload)
        let environment = Self.jwsEnvironment(payload?.environment)
        let instant = timePolicy.instant(creationDate: payload?.signedDate) { now ?? configuration.clock() }
        var chain: [String] = []
        var nested: [JWSVerdict] = []

        func finish(_ reasons: [Reason]) -> JWSVerdict {
            let proving = reasons.filter(Self.proves)
            let outcome: Verdict.Outcome = reasons.isEmpty ? .valid : (proving.isEmpty ? .inconclusive : .invalid)
            return JWSVerdict(
                outcome: outcome, reasons: proving + reasons.filter { !Self.proves($0) }, jws: jws, payload: payload,
                environment: environment, validationTime: timePolicy, validationInstant: instant, chain: chain,
                nested: nested)
        }

        guard jws.algorithm == "ES256" else {
            return finish([
                Reason(
                    .jwsAlgorithmRejected,
                    "jws: alg \(jws.algorithm.map { "\"\($0)\"" } ?? "(none)") is not ES256, the only algorithm Apple signs with"
                )
            ])
        }
        // RFC 7515 §4.1.11: a JWS naming critical extensions this verifier does not implement must be refused;
        // Apple's use none.
        if jws.header["crit"] != nil {
            return finish([
                Reason(.jwsMalformed, "jws: the header names critical extensions (crit), which Apple's JWS never carry")
            ])
        }
        guard let payload else {
            return finish([
                Reason(
                    .jwsMalformed,
                    "jws: the payload is not a transaction, renewal info, app transaction or notification")
            ])
        }
        var reasons: [Reason] = []
        if instant == nil {
            reasons.append(
                Reason(
                    .chainValidationTimeUnavailable,
                    "chain: validation at the payload's signedDate was asked for, but it has none"))
        }
        let evaluation = evaluateJWSChain(jws, environment: environment, at: instant?.secondsSince1970)
        chain = evaluation.subjects
        reasons += evaluation.reasons
        if let key = evaluation.signerKey {
            do {
                if !(try key.verifyES256(signature: jws.signature[...], message: jws.signingInput)) {
                    reasons.append(
                        Reason(
                            .jwsSignatureMismatch,
                            "jws: the ES256 signature does not verify with the x5c leaf's key"))
                }
            } catch {
                reasons.append(Reason(.chainKeyRejected, "jws: the leaf's key cannot check ES256: \(error)"))
            }
        }
        if !reasons.contains(where: Self.proves) {
            reasons += Self.evaluate(policy, payload, environment: environment) { now ?? configuration.clock() }
        }
        if case .notification(let notification) = payload, depth == 0, !reasons.contains(where: Self.proves) {
            for (name, text) in [
                ("signedTransactionInfo", notification.signedTransactionInfo),
                ("signedRenewalInfo", notification.signedRenewalInfo),
            ] {
                guard let text else { continue }
                let inner: JWSVerdict
                do throws(JWSError) {
                    inner = verify(
                        try CompactJWS(text), validationTime: timePolicy, policy: policy, now: now, depth: depth + 1)
                } catch {
                    reasons.append(Reason(.jwsMalformed, "jws: \(name): \(error.reason) (\(error.code))"))
                    continue
                }
                nested.append(inner)
                if let reason = inner.reason {
                    reasons.append(Reason(reason.code, "\(name): \(reason.message)"))
                } else if let mismatch = Self.nestedMismatch(notification, inner.payload, name: name) {
                    reasons.append(mismatch)
                }
            }
        }
        if reasons.isEmpty, let verified = evaluation.verified {
            cache.insert(verified.key, verified.chain)
        }
        return finish(reasons)
    }

    /// A nested JWS about another app or environment than its notification.
    private static func nestedMismatch(_ notification: NotificationV2, _ payload: JWSPayload?, name: String) -> Reason?
    {
        if let inner = payload?.bundleID, inner != notification.bundleID {
            return Reason(
                .jwsNestedMismatch,
                "jws: \(name) names bundle id \(inner), the notification \(notification.bundleID ?? "(none)")")
        }
        if payload?.environment != notification.environment {
            return Reason(
                .jwsNestedMismatch,
                "jws: \(name) names environment \(payload?.environment ?? "(none)"), the notification \(notification.environment ?? "(none)")"
            )
        }
        return nil
    }

    /// The policy's checks that apply to a JWS payload.
    static func evaluate(
        _ policy: ReceiptPolicy, _ payload: JWSPayload, environment: ReceiptEnvironment?, now: () -> ReceiptDate
    ) -> [Reason] {
        var reasons: [Reason] = []
        if let accepted = policy.acceptedBundleIDs, payload.kind != .renewalInfo,
            !accepted.contains(payload.bundleID ?? "")
        {
            reasons.append(
                Reason(.policyBundleIDRejected, "policy: bundle id \(payload.bundleID ?? "(none)") is not accepted"))
        }
        if let environment {
            if !policy.acceptedEnvironments.contains(environment) {
                reasons.append(Reason(.policyEnvironmentRejected, "policy: environment \(environment) is not accepted"))
            }
        } else if policy.acceptedEnvironments.count != ReceiptEnvironment.allCases.count {
            reasons.append(Reason(.policyEnvironmentRejected, "policy: the payload names no known environment"))
        }
        if let accepted = policy.acceptedAppAppleIDs, payload.kind == .notification || payload.kind == .appTransaction,
            !accepted.contains(payload.appAppleID ?? -1)
        {
            reasons.append(
                Reason(
                    .policyAppAppleIDRejected,
                    "policy: app Apple id \(payload.appAppleID.map(String.init) ?? "(none)") is not accepted"))
        }
        if let maximum = policy.maximumSignedAge {
            let limit = maximum.components.seconds.multipliedReportingOverflow(by: 1000)
            let age = payload.signedDate.map {
                now().millisecondsSince1970.subtractingReportingOverflow($0.millisecondsSince1970)
            }
            if let age, !age.overflow, !limit.overflow, age.partialValue <= limit.partialValue {
                // Within the maximum age.
            } else {
                reasons.append(
                    Reason(
                        .policySignedTooLongAgo,
                        "policy: signed \(payload.signedDate.map { "at \($0)" } ?? "at no stated date"), more than \(maximum) before now"
                    ))
            }
        }
        return reasons
    }
}
