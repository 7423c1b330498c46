import FuzzSupport
@_spi(Fuzzing) import ReceiptModel
import ReceiptVerification

// fuzz-jws: a StoreKit 2 JWS or a notification's `signedPayload` as a client or an impersonated Apple sends it.
// `CompactJWS` (segments, base64url, header and payload JSON, x5c), `JWSPayload` classification and every typed
// accessor, then the whole verifier (`verifyJWS`: algorithm, x5c screening, OpenSSL path validation, markers,
// ES256, policy, nested JWS) at a fixed instant with the Xcode opt-in on, so every branch is reachable.
//
// Checked besides "does not trap": a `valid` verdict carries its payload; an input that does not decode is
// `invalid` with `jws.malformed`.

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = LibFuzzer.bytes(data, size)
    FuzzJWS.run(bytes)
    return 0
}

@_cdecl("fuzz_jws_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    LibFuzzer.run(argc: argc, argv: argv, testOneInput: testOneInput)
}

enum FuzzJWS {
    static let verifier: ReceiptVerifier = {
        var anchors = TrustAnchors(allowsXcodeStoreKitTesting: true)
        try? anchors.addRoots(fromPath: "certs/test-jws-root.pem")
        var policy = ReceiptPolicy()
        policy.maximumSignedAge = .seconds(86_400 * 365 * 30)
        return ReceiptVerifier(
            configuration: ReceiptVerifier.Configuration(
                trustAnchors: anchors, validationTime: .receiptCreation, policy: policy,
                clock: { ReceiptDate(clampingMillisecondsSince1970: 1_764_000_000_000) }))
    }()

    static func run(_ bytes: [UInt8]) {
        Sink.consume(CompactJWS.isJWSText(bytes[...]))
        if let jws = try? CompactJWS(bytes[...]) {
            Sink.consume(jws.algorithm)
            Sink.consume(jws.keyID)
            Sink.consume(jws.certificates?.count)
            if let payload = JWSPayload(guessing: jws.payload) { consume(payload) }
            for kind in JWSPayload.Kind.allCases { consume(JWSPayload(jws.payload, kind: kind)) }
        }
        // Found on its own (kind guessed), and as each member would state it.
        let stated = JWSPayload.Kind.allCases[Int(bytes.count % JWSPayload.Kind.allCases.count)]
        let typed = verifier.verifyJWS(bytes[...], kind: stated)
        if typed.isValid, typed.payload?.kind != stated { fatalError("a valid verdict of another kind than stated") }
        let verdict = verifier.verifyJWS(bytes[...])
        Sink.consume(verdict.description)
        if verdict.isValid, verdict.payload == nil { fatalError("a valid verdict without its payload") }
        if verdict.jws == nil, verdict.reason?.code != .jwsMalformed { fatalError("undecodable but not jws.malformed") }
        for inner in verdict.nested { Sink.consume(inner.description) }
    }

    static func consume(_ payload: JWSPayload) {
        Sink.consume(payload.kind)
        Sink.consume(payload.signedDate)
        Sink.consume(payload.environment)
        Sink.consume(payload.bundleID)
        Sink.consume(payload.appAppleID)
        switch payload {
        case .transaction(let value):
            Sink.consume([value.transactionID, value.originalTransactionID, value.productID, value.type?.rawValue])
            Sink.consume([value.offerPeriod, value.currency, value.revocationType?.rawValue])
            Sink.consume([value.price, value.revocationPercentage, value.commitmentInfo?.commitmentPrice])
            Sink.consume(value.advancedCommerceInfo?.items?.count)
            Sink.consume([value.purchaseDate, value.expiresDate, value.revocationDate, value.originalPurchaseDate])
            Sink.consume([value.quantity, value.offerType?.rawValue, value.revocationReason?.rawValue])
        case .renewalInfo(let value):
            Sink.consume([value.autoRenewProductID, value.productID, value.originalTransactionID])
            Sink.consume([value.gracePeriodExpiresDate, value.renewalDate, value.recentSubscriptionStartDate])
            Sink.consume([value.autoRenewStatus?.rawValue, value.expirationIntent?.rawValue, value.renewalPrice])
            Sink.consume(value.eligibleWinBackOfferIDs)
            Sink.consume(value.commitmentInfo?.commitmentRenewalDate)
            Sink.consume(value.isInBillingRetryPeriod)
        case .appTransaction(let value):
            Sink.consume([value.receiptType?.rawValue, value.applicationVersion, value.appTransactionID])
            Sink.consume(value.originalPlatform)
            Sink.consume([value.originalPurchaseDate, value.receiptCreationDate])
        case .notification(let value):
            Sink.consume([value.notificationType?.rawValue, value.subtype?.rawValue, value.notificationUUID])
            Sink.consume([value.signedTransactionInfo?.count, value.signedRenewalInfo?.count])
            Sink.consume([value.bundleID, value.environment?.rawValue])
            Sink.consume(value.appAppleID)
            Sink.consume(value.nestedJWS.map(\.kind))
            Sink.consume([
                value.summary?.failedCount, value.externalPurchaseToken?.tokenCreationDate?.millisecondsSince1970,
            ])
            Sink.consume(value.data?.status)
            Sink.consume(value.undocumentedMembers)
        }
    }
}
