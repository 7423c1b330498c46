internal import ReceiptCrypto
public import ReceiptModel

extension ReceiptVerifier {
    /// Verifies a StoreKit 2 JWS (transaction, renewal info, app transaction) or an App Store Server Notification
    /// V2 `signedPayload` locally, offline, in the order Apple's libraries do and then some:
    ///
    /// 1. the compact serialization decodes (`CompactJWS` in ReceiptModel, bounded);
    /// 2. `alg` is ES256: anything else (`none`, HS256, RS256) is `invalid`;
    /// 3. the payload is read as `kind`, or, when no kind is given, as the one kind `JWSPayload.Kind.guess` finds
    ///    from the members each kind must have (`jws.unknown_kind` otherwise); a stated kind's payload must carry its
    ///    identifying members and not another kind's required ones (`jws.kind_mismatch`, judged after the signature);
    /// 4. `x5c` holds three certificates, each an EC key on P-256 or P-384 (screened before OpenSSL parses them),
    ///    in Apple's order: leaf, intermediate, root (`jws.x5c_order` otherwise);
    /// 5. the path leaf → intermediate → a trusted root (Apple Root CA - G3 pinned by fingerprint, or an extra
    ///    root) validates at the validation instant: the payload's `signedDate` by default (``ValidationTime/receiptCreation``),
    ///    or now, or a fixed instant; from the verified-chain cache when this chain validated before;
    /// 6. Apple's markers: leaf 1.2.840.113635.100.6.11.1, intermediate 1.2.840.113635.100.6.2.1;
    /// 7. the ES256 signature over the signing input, with the leaf's P-256 key;
    /// 8. the policy: bundle id, environment, app Apple id (Production only, as Apple's verifiers), maximum age
    ///    against `now`;
    /// 9. for a notification, each nested JWS typed by the member holding it (`data.signedTransactionInfo`,
    ///    `data.signedRenewalInfo`, `appData.signedAppTransactionInfo`), verified the same way and about the same
    ///    app, environment and subscription.
    ///
    /// An Xcode-signed JWS (one self-signed certificate, environment `Xcode`) is trusted only with the Xcode opt-in
    /// (``TrustAnchors/allowsXcodeStoreKitTesting``), and then only as a signature by its own certificate.
    ///
    /// Never throws: undecodable input is `invalid` with ``Reason/Code/jwsMalformed``.
    /// - Parameters:
    ///   - text: the JWS (white space or quotes around it are ignored).
    ///   - kind: what the JWS is, when where it came from says it; `nil` for a JWS found on its own.
    ///   - validationTime: overrides ``Configuration/validationTime`` for this call.
    ///   - policy: overrides ``Configuration/policy`` for this call.
    ///   - now: the instant "now" stands for (validation time `now`, maximum age); `nil` reads the configured clock,
    ///     and only when one of those needs it.
    public func verifyJWS(
        _ text: ArraySlice<UInt8>, kind: JWSPayload.Kind? = nil, validationTime: ValidationTime? = nil,
        policy: ReceiptPolicy? = nil, now: ReceiptDate? = nil
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
        let request = JWSRequest(kind: kind, member: nil, validationTime: timePolicy, policy: policy, now: now)
        return verify(jws, request, depth: 0)
    }

    /// Verifies a JWS held in a string; see ``verifyJWS(_:kind:validationTime:policy:now:)-(ArraySlice<UInt8>,_,_,_,_)``.
    public func verifyJWS(
        _ text: String, kind: JWSPayload.Kind? = nil, validationTime: ValidationTime? = nil,
        policy: ReceiptPolicy? = nil, now: ReceiptDate? = nil
    ) -> JWSVerdict {
        verifyJWS(Array(text.utf8)[...], kind: kind, validationTime: validationTime, policy: policy, now: now)
    }

    /// The environment a JWS payload names.
    static func jwsEnvironment(_ name: AppleEnumeration<JWSEnvironment>?) -> ReceiptEnvironment? {
        switch name?.value {
        case .production: .production
        case .sandbox: .sandbox
        case .xcode, .localTesting: .xcode
        case nil: nil
        }
    }

    /// What one verification of a JWS asks: its kind (and the member it was found in), the time and the policy.
    struct JWSRequest {
        var kind: JWSPayload.Kind?
        var member: String?
        var validationTime: ValidationTime
        var policy: ReceiptPolicy
        var now: ReceiptDate?
    }

    private func verify(_ jws: CompactJWS, _ request: JWSRequest, depth: Int) -> JWSVerdict {
        let timePolicy = request.validationTime
        // A stated kind is taken as stated (its missing members are refused once the signature is judged); a JWS on
        // its own is of the one kind its members fit, or of none.
        let payload = (request.kind ?? JWSPayload.Kind.guess(jws.payload)).map { JWSPayload(jws.payload, kind: $0) }
        let environment = Self.jwsEnvironment(payload?.environment)
        let instant = timePolicy.instant(creationDate: payload?.signedDate) { request.now ?? configuration.clock() }
        var chain: [String] = []
        var nested: [JWSVerdict] = []

        func finish(_ reasons: [Reason]) -> JWSVerdict {
            JWSVerdict(
                judging: reasons, subject: JWSSubject(jws: jws, payload: payload, nested: nested),
                environment: environment, validationTime: timePolicy, validationInstant: instant, chain: chain)
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
        guard let payload else { return finish([Self.unknownKindReason(jws.payload)]) }
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
        // As for receipts: once the chain and the signature made with it have verified, the JWS is Apple's and its
        // chain may teach the cache, whatever the payload's own checks (its shape, the policy) then say of it.
        let signedByApple = reasons.isEmpty
        if !reasons.contains(where: \.decides),
            let mismatch = Self.shapeReason(payload, stated: request.kind != nil, member: request.member)
        {
            reasons.append(mismatch)
        }
        if !reasons.contains(where: \.decides), let member = payload.fields.nonIntegerMember() {
            reasons.append(
                Reason(.jwsMalformed, "jws: \(member) is not an integer, as Apple writes it (no exponent, no string)"))
        }
        if !reasons.contains(where: \.decides) {
            reasons += Self.evaluate(request.policy, payload, environment: environment) {
                request.now ?? configuration.clock()
            }
        }
        if case .notification(let notification) = payload, depth == 0, !reasons.contains(where: \.decides) {
            let inner = verifyNested(notification, request, depth: depth)
            nested = inner.verdicts
            reasons += inner.reasons
        }
        if signedByApple, let verified = evaluation.verified {
            cache.insert(verified.key, verified.chain, evicting: reasons.isEmpty)
        }
        return finish(reasons)
    }

    /// A notification's nested JWS, each typed by its member and verified like the notification (same time, same
    /// policy); the reasons they add (a nested reason names its member), and whether they agree with it.
    private func verifyNested(_ notification: NotificationV2, _ request: JWSRequest, depth: Int)
        -> (verdicts: [JWSVerdict], reasons: [Reason])
    {
        var verdicts: [JWSVerdict] = []
        var reasons: [Reason] = []
        for found in notification.nestedJWS {
            var inner = request
            inner.kind = found.kind
            inner.member = found.member
            let verdict: JWSVerdict
            do throws(JWSError) {
                verdict = verify(try CompactJWS(found.text), inner, depth: depth + 1)
            } catch {
                reasons.append(Reason(.jwsMalformed, "jws: \(found.member): \(error.reason) (\(error.code))"))
                continue
            }
            verdicts.append(verdict)
            if let reason = verdict.reason {
                reasons.append(Reason(reason.code, "\(found.member): \(reason.message)"))
            }
        }
        if let mismatch = Self.nestedMismatch(notification, verdicts) { reasons.append(mismatch) }
        return (verdicts, reasons)
    }

    /// Why a payload read as the kind it was stated to be is not one (``JWSPayload/Kind/mismatch(in:)``), or, for a
    /// notification, why its shape is not Apple's: more than one object naming its app, or a nested JWS member that
    /// is not a string (never skipped: it would hide what the notification is about).
    /// A guessed kind fits by construction: only a stated one is checked.
    private static func shapeReason(_ payload: JWSPayload, stated: Bool, member: String?) -> Reason? {
        if stated, let mismatch = payload.kind.mismatch(in: payload.fields) {
            let place = member.map { "\($0) holds" } ?? "the JWS is"
            return Reason(.jwsKindMismatch, "jws: \(place) no \(payload.kind): \(mismatch)")
        }
        guard case .notification(let notification) = payload else { return nil }
        if notification.appObjects.count > 1 {
            return Reason(
                .jwsMalformed,
                "jws: the notification carries \(notification.appObjects.joined(separator: " and ")); Apple sends exactly one"
            )
        }
        if let malformed = notification.malformedNestedMembers.first {
            return Reason(.jwsMalformed, "jws: the notification's \(malformed) is not a JWS string")
        }
        return nil
    }

    /// Why no single kind fits a JWS found on its own.
    private static func unknownKindReason(_ payload: JSONObject) -> Reason {
        let fitting = JWSPayload.Kind.allCases.filter { $0.fits(payload) }
        let why =
            fitting.isEmpty
            ? "it has the members of no kind (a transaction, a renewal info, an app transaction or a notification)"
            : "it has the members of several kinds (\(fitting.map(\.rawValue).joined(separator: ", ")))"
        return Reason(.jwsUnknownKind, "jws: what the payload is cannot be told: \(why); say which kind it is")
    }

    /// A nested JWS about another app, environment or subscription than its notification (or its sibling).
    private static func nestedMismatch(_ notification: NotificationV2, _ nested: [JWSVerdict]) -> Reason? {
        for verdict in nested {
            guard let payload = verdict.payload else { continue }
            let name = "\(payload.kind)"
            if payload.kind != .renewalInfo, payload.bundleID != notification.bundleID {
                return Reason(
                    .jwsNestedMismatch,
                    "jws: the nested \(name) names bundle id \(payload.bundleID ?? "(none)"), the notification \(notification.bundleID ?? "(none)")"
                )
            }
            if payload.environment != notification.environment {
                return Reason(
                    .jwsNestedMismatch,
                    "jws: the nested \(name) names environment \(payload.environment?.rawValue ?? "(none)"), the notification \(notification.environment?.rawValue ?? "(none)")"
                )
            }
            if let appAppleID = payload.appAppleID, let named = notification.appAppleID, appAppleID != named {
                return Reason(
                    .jwsNestedMismatch,
                    "jws: the nested \(name) names app Apple id \(appAppleID), the notification \(named)")
            }
        }
        let originals = nested.compactMap { verdict -> String? in
            switch verdict.payload {
            case .transaction(let value)?: value.originalTransactionID
            case .renewalInfo(let value)?: value.originalTransactionID
            default: nil
            }
        }
        if Set(originals).count > 1 {
            return Reason(
                .jwsNestedMismatch,
                "jws: the nested transaction and renewal info are about different subscriptions (original transaction ids \(originals.joined(separator: " and ")))"
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
        // Apple's verifiers compare the app Apple id only in Production: Apple leaves it out of Sandbox payloads. Not
        // compared only where the payload is known to be Sandbox or Xcode: a missing or unknown environment is checked.
        if let accepted = policy.acceptedAppAppleIDs, environment != .sandbox, environment != .xcode,
            payload.kind == .notification || payload.kind == .appTransaction,
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
