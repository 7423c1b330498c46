import Foundation
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

/// The JWS verifier against the real JWS in ../shared/receipts/jws: one Apple-signed renewal info (Sandbox, 2023)
/// and one Xcode-signed transaction, and hostile variants made from them here.
@Suite("JWS", .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
struct JWSVerificationTests {
    static let appleRenewal = "jws-goiap-renewal-sandbox"
    static let xcodeTransaction = "jws-apple-xcode-signed-transaction"

    static func text(_ name: String) throws -> String {
        try SharedTestData.jwsText(name)
    }

    static func segments(_ name: String) throws -> [String] {
        try text(name).trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: ".", omittingEmptySubsequences: false
        )
        .map(String.init)
    }

    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
    }

    static func decodedSegment(_ segment: String) throws -> Data {
        var text = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return try #require(Data(base64Encoded: text))
    }

    @Test func anAppleSignedRenewalInfoIsValidAtItsSignedDate() throws {
        let verifier = ReceiptVerifier()
        let verdict = verifier.verifyJWS(try Self.text(Self.appleRenewal))
        #expect(verdict.outcome == .valid, "\(verdict.reasons)")
        guard case .renewalInfo(let renewal)? = verdict.verifiedPayload else {
            Issue.record("not renewal info: \(String(describing: verdict.payload))")
            return
        }
        #expect(renewal.originalTransactionID == "2000000335310644")
        #expect(renewal.autoRenewStatus == .known(.on))
        #expect(verdict.environment == .sandbox)
        #expect(verdict.validationInstant == renewal.signedDate)
        #expect(verdict.chain.count == 3)
        #expect(verdict.chain.last?.contains("Apple Root CA - G3") == true)
        // The second verification finds the chain in the cache.
        let before = verifier.cacheStatistics
        #expect(verifier.verifyJWS(try Self.text(Self.appleRenewal)).isValid)
        #expect(verifier.cacheStatistics.hits == before.hits + 1)
    }

    @Test func anAppleSignedJWSHasExpiredNow() throws {
        let verdict = ReceiptVerifier().verifyJWS(
            try Self.text(Self.appleRenewal), validationTime: .now,
            now: ReceiptDate(clampingMillisecondsSince1970: 1_790_000_000_000))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .chainExpired, "\(verdict.reasons)")
    }

    @Test func anXcodeSignedJWSIsTrustedOnlyWithTheOptIn() throws {
        let refused = ReceiptVerifier().verifyJWS(try Self.text(Self.xcodeTransaction))
        #expect(refused.outcome == .invalid)
        #expect(refused.reason?.code == .chainUntrustedRoot, "\(refused.reasons)")
        let configuration = ReceiptVerifier.Configuration(
            trustAnchors: TrustAnchors(allowsXcodeStoreKitTesting: true))
        let accepted = ReceiptVerifier(configuration: configuration).verifyJWS(try Self.text(Self.xcodeTransaction))
        #expect(accepted.outcome == .valid, "\(accepted.reasons)")
        #expect(accepted.environment == .xcode)
        guard case .transaction(let transaction)? = accepted.verifiedPayload else {
            Issue.record("not a transaction")
            return
        }
        #expect(transaction.productID == "pass.premium")
        #expect(transaction.purchaseDate?.millisecondsSince1970 == 1_697_679_936_049)
    }

    @Test func anXcodeCertificateMustBeValidAtTheValidationTime() throws {
        let configuration = ReceiptVerifier.Configuration(
            trustAnchors: TrustAnchors(allowsXcodeStoreKitTesting: true))
        let later = ReceiptVerifier(configuration: configuration).verifyJWS(
            try Self.text(Self.xcodeTransaction), validationTime: .now,
            now: ReceiptDate(clampingMillisecondsSince1970: 1_790_000_000_000))
        #expect(later.reason?.code == .chainExpired, "\(later.reasons)")
    }

    @Test func aCriticalHeaderIsRefused() throws {
        var parts = try Self.segments(Self.appleRenewal)
        var header = try JSONSerialization.jsonObject(with: Self.decodedSegment(parts[0])) as? [String: Any] ?? [:]
        header["crit"] = ["b64"]
        parts[0] = Self.base64URL(try JSONSerialization.data(withJSONObject: header))
        let verdict = ReceiptVerifier().verifyJWS(parts.joined(separator: "."))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .jwsMalformed, "\(verdict.reasons)")
    }

    @Test func aTamperedPayloadFailsTheSignature() throws {
        var parts = try Self.segments(Self.appleRenewal)
        var payload = try JSONSerialization.jsonObject(with: Self.decodedSegment(parts[1])) as? [String: Any] ?? [:]
        payload["autoRenewStatus"] = 0
        parts[1] = Self.base64URL(try JSONSerialization.data(withJSONObject: payload))
        let verifier = ReceiptVerifier()
        let verdict = verifier.verifyJWS(parts.joined(separator: "."))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .jwsSignatureMismatch, "\(verdict.reasons)")
        // Apple's genuine chain, but not Apple's signature: the chain stays out of the cache.
        #expect(verifier.cacheStatistics.entries == 0)
    }

    @Test(arguments: ["none", "HS256", "RS256", "ES384"])
    func anyAlgorithmButES256IsRejected(algorithm: String) throws {
        var parts = try Self.segments(Self.appleRenewal)
        var header = try JSONSerialization.jsonObject(with: Self.decodedSegment(parts[0])) as? [String: Any] ?? [:]
        header["alg"] = algorithm
        parts[0] = Self.base64URL(try JSONSerialization.data(withJSONObject: header))
        if algorithm == "none" { parts[2] = "" }
        let verdict = ReceiptVerifier().verifyJWS(parts.joined(separator: "."))
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .jwsAlgorithmRejected, "\(verdict.reasons)")
    }

    /// Apple's chain in any order but leaf, intermediate, root is `jws.x5c_order`, whatever else the order breaks
    /// (OpenSSL alone builds a path from leaf, root, intermediate and accepts it).
    @Test func everyOtherOrderOfApplesChainIsRefused() throws {
        var parts = try Self.segments(Self.appleRenewal)
        let original = try JSONSerialization.jsonObject(with: Self.decodedSegment(parts[0])) as? [String: Any] ?? [:]
        let chain = try #require(original["x5c"] as? [String])
        let orders = [[0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        for order in orders {
            var header = original
            header["x5c"] = order.map { chain[$0] }
            parts[0] = Self.base64URL(try JSONSerialization.data(withJSONObject: header))
            let verdict = ReceiptVerifier().verifyJWS(parts.joined(separator: "."))
            #expect(verdict.outcome == .invalid)
            #expect(verdict.reason?.code == .jwsX5COrder, "order \(order): \(verdict.reasons)")
        }
    }

    @Test func missingCertificatesAreRefused() throws {
        var parts = try Self.segments(Self.appleRenewal)
        let original = try JSONSerialization.jsonObject(with: Self.decodedSegment(parts[0])) as? [String: Any] ?? [:]
        let chain = try #require(original["x5c"] as? [String])
        for (x5c, code) in [
            (Array(chain.prefix(2)), Reason.Code.jwsCertificatesMissing),
            ([], .jwsCertificatesMissing),
        ] {
            var header = original
            header["x5c"] = x5c
            parts[0] = Self.base64URL(try JSONSerialization.data(withJSONObject: header))
            let verdict = ReceiptVerifier().verifyJWS(parts.joined(separator: "."))
            #expect(verdict.outcome == .invalid)
            #expect(verdict.reason?.code == code, "\(x5c.count) certificates: \(verdict.reasons)")
        }
    }

    @Test func thePolicyDecidesAfterTheSignature() throws {
        var production = ReceiptPolicy(acceptedEnvironments: [.production])
        let refused = ReceiptVerifier().verifyJWS(try Self.text(Self.appleRenewal), policy: production)
        #expect(refused.reason?.code == .policyEnvironmentRejected, "\(refused.reasons)")
        production.acceptedEnvironments = [.sandbox]
        production.maximumSignedAge = .seconds(600)
        let signed: Int64 = 1_684_822_778_492
        let fresh = ReceiptVerifier().verifyJWS(
            try Self.text(Self.appleRenewal), policy: production,
            now: ReceiptDate(clampingMillisecondsSince1970: signed + 599_000))
        #expect(fresh.isValid, "\(fresh.reasons)")
        let stale = ReceiptVerifier().verifyJWS(
            try Self.text(Self.appleRenewal), policy: production,
            now: ReceiptDate(clampingMillisecondsSince1970: signed + 601_000))
        #expect(stale.reason?.code == .policySignedTooLongAgo, "\(stale.reasons)")
    }

    /// Signed by Apple, refused by the policy: the chain is proven, so it is in the cache and the next refusal comes
    /// from there, the same.
    @Test func aPolicyRefusalTeachesTheChainCache() throws {
        let production = ReceiptPolicy(acceptedEnvironments: [.production])
        let verifier = ReceiptVerifier()
        let refused = verifier.verifyJWS(try Self.text(Self.appleRenewal), policy: production)
        #expect(refused.reason?.code == .policyEnvironmentRejected, "\(refused.reasons)")
        #expect(verifier.cacheStatistics.entries == 1)
        let again = verifier.verifyJWS(try Self.text(Self.appleRenewal), policy: production)
        #expect(again.reasons.map(\.code) == refused.reasons.map(\.code))
        #expect(again.chain == refused.chain)
        #expect(verifier.cacheStatistics.hits == 1)
    }

    @Test(arguments: ["", "abc", "a.b", "a.b.c.d", "eyJ.eyJ.", "!!!.eyJ9.AA"])
    func malformedInputIsInvalid(text: String) {
        let verdict = ReceiptVerifier().verifyJWS(text)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .jwsMalformed, "\(verdict.reasons)")
    }

    /// A JWS on its own whose payload has the members of no kind is not taken for one; said to be a transaction,
    /// it is read as one and lacks what every transaction has.
    @Test func aPayloadOfNoKindIsUnknownUnlessItsKindIsSaid() {
        let text = "eyJhbGciOiJFUzI1NiJ9.e30.AA"
        let verdict = ReceiptVerifier().verifyJWS(text)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .jwsUnknownKind, "\(verdict.reasons)")
        #expect(verdict.payload == nil)
        let stated = ReceiptVerifier().verifyJWS(text, kind: .transaction)
        #expect(stated.outcome == .invalid)
        #expect(stated.payload?.kind == .transaction)
    }
}
