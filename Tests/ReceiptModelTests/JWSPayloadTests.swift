import Foundation
import ReceiptModel
import TestSupport
import Testing

/// What a JWS payload is and what it says: the kind told from the members each kind must have (never from an
/// optional one), every documented member typed, unknown members and values kept.
@Suite struct JWSPayloadTests {
    static let corpus = SharedTestData.packageRoot.appendingPathComponent("fixtures/jws")

    static func payload(_ text: String) throws -> JSONObject {
        try CompactJWS(text).payload
    }

    static func corpusPayload(_ name: String) throws -> JSONObject {
        try payload(String(contentsOf: corpus.appendingPathComponent("\(name).jws"), encoding: .utf8))
    }

    /// Real payloads of every year held: 2023 (a renewal info, an Xcode transaction) and 2025 (a notification whose
    /// nested renewal info carries `appTransactionId`, as app transactions do).
    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func realPayloadsOfEveryYearAreToldApart() throws {
        #expect(
            JWSPayload.Kind.guess(try Self.payload(SharedTestData.jwsText("jws-goiap-renewal-sandbox"))) == .renewalInfo
        )
        #expect(
            JWSPayload.Kind.guess(try Self.payload(SharedTestData.jwsText("jws-apple-xcode-signed-transaction")))
                == .transaction)
        let body = try SharedTestData.json(
            at: SharedTestData.receiptsDirectory.appendingPathComponent(
                "notifications/n2-sessionpro-did-renew-sandbox-2025.json"))
        let notification = try Self.payload(try #require(body["signedPayload"] as? String))
        #expect(JWSPayload.Kind.guess(notification) == .notification)
        guard case .notification(let decoded) = JWSPayload(notification, kind: .notification) else {
            Issue.record("not a notification")
            return
        }
        let renewal = try Self.payload(try #require(decoded.signedRenewalInfo))
        #expect(renewal["appTransactionId"] != nil, "the member that misled the old guess")
        #expect(JWSPayload.Kind.guess(renewal) == .renewalInfo)
        #expect(JWSPayload.Kind.guess(try Self.payload(try #require(decoded.signedTransactionInfo))) == .transaction)
        #expect(decoded.notificationType == .known(.didRenew))
        #expect(decoded.appAppleID == 1_470_168_868)
        #expect(decoded.environment == .known(.sandbox))
        #expect(decoded.nestedJWS.map(\.kind) == [.transaction, .renewalInfo])
    }

    /// A payload with the members of no kind, or of two, is of no kind: the caller must say.
    @Test func noneOrSeveralKindsFitIsNoGuess() {
        let member = { (key: String) in JSONObject.Member(key: key, value: .string("1")) }
        #expect(JWSPayload.Kind.guess(JSONObject(members: ["appTransactionId", "bundleId"].map(member))) == nil)
        let both = JWSPayload.Kind.transaction.requiredMembers + JWSPayload.Kind.renewalInfo.requiredMembers
        #expect(JWSPayload.Kind.guess(JSONObject(members: both.map(member))) == nil)
        for kind in JWSPayload.Kind.allCases {
            #expect(JWSPayload.Kind.guess(JSONObject(members: kind.requiredMembers.map(member))) == kind)
        }
    }

    @Test func membersNameTheKindOfTheJWSTheyHold() {
        #expect(JWSPayload.Kind(member: "signedPayload") == .notification)
        #expect(JWSPayload.Kind(member: "signedTransactionInfo") == .transaction)
        #expect(JWSPayload.Kind(member: "signedRenewalInfo") == .renewalInfo)
        #expect(JWSPayload.Kind(member: "signedAppTransactionInfo") == .appTransaction)
        #expect(JWSPayload.Kind(member: "data") == nil)
    }

    /// Every documented member of the corpus's full payloads is read by its typed accessor, every enumeration value
    /// is a known one, and the member Apple has not defined is kept and listed.
    @Test func everyDocumentedMemberIsTyped() throws {
        let transaction = JWSTransaction(fields: try Self.corpusPayload("corpus-transaction-all-members"))
        #expect(transaction.undocumentedMembers == ["someFutureMember"])
        #expect(transaction.type == .known(.autoRenewableSubscription))
        #expect(transaction.offerType == .known(.introductory))
        #expect(transaction.offerDiscountType == .known(.freeTrial))
        #expect(transaction.offerPeriod == "P1M")
        #expect(transaction.billingPlanType == .known(.monthly))
        #expect(transaction.commitmentInfo?.billingPeriodNumber == 3)
        #expect(transaction.commitmentInfo?.undocumentedMembers == [])
        #expect(transaction.price == 4990 && transaction.currency == "USD")
        #expect(transaction.appTransactionID == "704289572311513390")
        #expect(transaction.inAppOwnershipType == .known(.purchased))
        #expect(transaction.transactionReason == .known(.renewal))
        #expect(transaction.storefront == "USA" && transaction.storefrontID == "143441")
        let renewal = JWSRenewalInfo(fields: try Self.corpusPayload("corpus-renewal-info-all-members"))
        #expect(renewal.undocumentedMembers == ["someFutureMember"])
        #expect(renewal.eligibleWinBackOfferIDs == ["org.example.winback", "org.example.winback2"])
        #expect(renewal.renewalPrice == 4990)
        #expect(renewal.offerType == .known(.winBack))
        #expect(renewal.renewalBillingPlanType == .known(.monthly))
        #expect(renewal.commitmentInfo?.commitmentAutoRenewStatus == .known(.on))
        #expect(renewal.autoRenewStatus == .known(.on))
        let app = JWSAppTransaction(fields: try Self.corpusPayload("corpus-app-transaction-all-members"))
        #expect(app.undocumentedMembers == ["someFutureMember"])
        #expect(app.originalPlatform == .known(.iOS))
        #expect(app.receiptType == .known(.sandbox))
        let refund = NotificationV2(fields: try Self.corpusPayload("corpus-refund"))
        let refunded = JWSTransaction(fields: try Self.payload(try #require(refund.signedTransactionInfo)))
        #expect(refunded.revocationType == .known(.refundProrated))
        #expect(refunded.revocationPercentage == 40000)
        #expect(refunded.revocationReason == .known(.appIssue))
        let commerce = NotificationV2(fields: try Self.corpusPayload("corpus-metadata-update"))
        let item = JWSTransaction(fields: try Self.payload(try #require(commerce.signedTransactionInfo)))
        #expect(item.advancedCommerceInfo?.items?.first?.text("SKU") == "org.example.sku.article")
        #expect(item.advancedCommerceInfo?.taxRate == "0.10")
    }

    /// The objects only some notification types carry: the app and environment come from whichever is there.
    @Test func summaryTokenAndAppDataNameTheApp() throws {
        let summary = NotificationV2(fields: try Self.corpusPayload("corpus-renewal-extension-summary"))
        #expect(summary.data == nil)
        #expect(summary.summary?.succeededCount == 1800)
        #expect(summary.bundleID == "org.example.receiptforge.sample")
        #expect(summary.environment == .known(.sandbox))
        let token = NotificationV2(fields: try Self.corpusPayload("corpus-external-purchase-token-created"))
        #expect(token.externalPurchaseToken?.tokenType == .known(.services))
        #expect(token.environment == .known(.sandbox), "a SANDBOX_ token id")
        #expect(token.appAppleID == 1_234_567_890)
        let consent = NotificationV2(fields: try Self.corpusPayload("corpus-rescind-consent"))
        #expect(consent.notificationType == .known(.rescindConsent))
        #expect(consent.nestedJWS.map(\.kind) == [.appTransaction])
        #expect(consent.bundleID == "org.example.receiptforge.sample")
    }

    /// A type, subtype or enumeration value Apple adds later is kept as signed.
    @Test func unknownValuesAreKept() throws {
        let future = NotificationV2(fields: try Self.corpusPayload("corpus-future-type"))
        #expect(future.notificationType == .unknown("SOME_FUTURE_TYPE"))
        #expect(future.subtype?.rawValue == "SOME_FUTURE_SUBTYPE")
        #expect(future.subtype?.value == nil)
        let fields = JSONObject(members: [
            .init(key: "offerType", value: .number("9")), .init(key: "type", value: .string("Bundle")),
        ])
        #expect(JWSTransaction(fields: fields).offerType == .unknown(9))
        #expect(JWSTransaction(fields: fields).type?.rawValue == "Bundle")
        let members = NotificationV2(fields: try Self.corpusPayload("corpus-future-members-did-renew"))
        #expect(members.undocumentedMembers == ["someFutureMember"])
        #expect(members.data?.undocumentedMembers == ["someFutureMember"])
    }
}
