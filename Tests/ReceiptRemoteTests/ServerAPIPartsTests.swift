import Foundation
import ReceiptCrypto
@_spi(Fuzzing) import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

@testable @_spi(Fuzzing) import ReceiptRemote

/// The App Store Server API client's parts on their own: the rate window, the tokens, the answers' strict decoding
/// and the request's encoding.
@Suite struct ServerAPIPartsTests {
    static let keyPath = SharedTestData.packageRoot.appendingPathComponent(
        "certs/test-only-keys/test-app-store-api.key.pem")

    static func key() throws -> AppStoreAPIKey {
        try AppStoreAPIKey(
            pem: String(contentsOf: keyPath, encoding: .utf8), keyID: "TESTKEY123", issuerID: "57246542-96fe-1a63-e053")
    }

    // MARK: - Rate

    /// Reserves for `key` at `now` and finishes the request `latency` later; `nil` when no instant is free.
    static func send(
        _ limiter: APIRateLimiter, _ key: APIRateLimiter.Key, now: Duration, latest: Duration,
        latency: Duration = .zero
    ) -> Duration? {
        guard case .at(let instant, let ticket) = limiter.reserve(key, now: now, latest: latest) else { return nil }
        limiter.finish(ticket, at: instant + latency)
        return instant
    }

    @Test func noOneSecondWindowHoldsMoreThanTheRateWhateverTheLatency() {
        let limiter = APIRateLimiter(productionRate: 7)
        let key = APIRateLimiter.Key(bundleID: "com.example", environment: .production)
        var sent: [(instant: Duration, finished: Duration)] = []
        var now = Duration.zero
        for step in 0..<100 {
            // Requests arrive in bursts and lulls; answers take 0 to 400 ms.
            now += step % 13 == 0 ? .milliseconds(900) : .milliseconds(3)
            let latency = Duration.milliseconds(step * 37 % 400)
            guard let instant = Self.send(limiter, key, now: now, latest: now + .seconds(3600), latency: latency) else {
                Issue.record("no reservation within an hour")
                return
            }
            #expect(instant >= now)
            sent.append((instant, instant + latency))
            now = instant
        }
        // Whenever each request reached Apple between its sending and its answer, no second holds more than 7:
        // the request 7 places later is sent a second after this one's answer.
        for index in sent.indices.dropLast(7) {
            #expect(sent[index + 7].instant >= sent[index].finished + .seconds(1))
        }
        // Not slower than it must be: the first seven go at once.
        #expect(sent[6].instant == sent[0].instant + .milliseconds(18))
    }

    @Test func aRequestWaitsWhileTheOneARateBeforeIsInFlight() {
        let limiter = APIRateLimiter(productionRate: 2)
        let key = APIRateLimiter.Key(bundleID: "com.example", environment: .production)
        guard case .at(_, let first) = limiter.reserve(key, now: .zero, latest: .seconds(60)) else {
            Issue.record("the first request waits")
            return
        }
        #expect(Self.send(limiter, key, now: .zero, latest: .seconds(60)) == .zero)
        #expect(limiter.reserve(key, now: .milliseconds(10), latest: .seconds(60)) == .waitForEarlier)
        limiter.finish(first, at: .milliseconds(300))
        #expect(Self.send(limiter, key, now: .milliseconds(310), latest: .seconds(60)) == .milliseconds(1320))
    }

    @Test func sandboxGetsATenthAndAtLeastOne() {
        #expect(APIRateLimiter(productionRate: 50).rate(.sandbox) == 5)
        #expect(APIRateLimiter(productionRate: 5).rate(.sandbox) == 1)
        #expect(APIRateLimiter(productionRate: 0).rate(.production) == 1)
    }

    @Test func aRetryAfterHoldsBothEnvironmentsOfThatAppOnly() {
        let limiter = APIRateLimiter(productionRate: 50)
        limiter.block("com.a", until: .seconds(10))
        for environment in [ReceiptEnvironment.production, .sandbox] {
            let key = APIRateLimiter.Key(bundleID: "com.a", environment: environment)
            #expect(Self.send(limiter, key, now: .seconds(1), latest: .seconds(60)) == .seconds(10))
        }
        let other = APIRateLimiter.Key(bundleID: "com.b", environment: .production)
        #expect(Self.send(limiter, other, now: .seconds(1), latest: .seconds(60)) == .seconds(1))
        // Past the deadline: nothing reserved.
        let key = APIRateLimiter.Key(bundleID: "com.a", environment: .production)
        #expect(limiter.reserve(key, now: .seconds(1), latest: .seconds(5)) == .tooLate)
        // An earlier Retry-After never shortens a later one.
        limiter.block("com.a", until: .seconds(3))
        #expect(limiter.blocked("com.a", now: .seconds(5)) == .seconds(10))
    }

    // MARK: - Tokens

    @Test func aTokenIsAnES256JWTWithApplesClaimsThatVerifiesWithThePublicHalf() throws {
        let pem = try String(contentsOf: Self.keyPath, encoding: .utf8)
        let tokens = AppStoreAPITokens(key: try Self.key(), lifetime: .seconds(1200), renewalMargin: .seconds(120))
        let token = try tokens.token(for: "com.example.app", now: 1_767_225_600)
        #expect(token.split(separator: ".").count == 3)
        let jws = try CompactJWS(token)
        #expect(jws.algorithm == "ES256")
        #expect(jws.keyID == "TESTKEY123")
        #expect(jws.header.text("typ") == "JWT")
        let claims = jws.payload
        #expect(claims.text("iss") == "57246542-96fe-1a63-e053")
        #expect(claims["iat"]?.integerValue == 1_767_225_600)
        let expiry: Int64 = 1_767_225_600 + 1200
        #expect(claims["exp"]?.integerValue == expiry)
        #expect(claims.text("aud") == "appstoreconnect-v1")
        #expect(claims.text("bid") == "com.example.app")
        let publicKey = try PublicKey(subjectPublicKeyInfo: try PrivateKey(pem: pem).subjectPublicKeyInfo()[...])
        #expect(try publicKey.verifyES256(signature: jws.signature[...], message: jws.signingInput))
        // Another key's public half does not verify it.
        let other = try PrivateKey(
            pem: String(
                contentsOf: SharedTestData.packageRoot.appendingPathComponent(
                    "certs/test-only-keys/test-jws-leaf.key.pem"),
                encoding: .utf8))
        let otherKey = try PublicKey(subjectPublicKeyInfo: try other.subjectPublicKeyInfo()[...])
        #expect(try !otherKey.verifyES256(signature: jws.signature[...], message: jws.signingInput))
    }

    @Test func oneTokenPerAppReusedUntilTheMarginThenRenewedAndDroppedOnRefusal() throws {
        let tokens = AppStoreAPITokens(key: try Self.key(), lifetime: .seconds(1200), renewalMargin: .seconds(120))
        let first = try tokens.token(for: "com.a", now: 1000)
        #expect(try tokens.token(for: "com.a", now: 1000 + 1079) == first)
        #expect(try tokens.token(for: "com.b", now: 1000) != first)
        let renewed = try tokens.token(for: "com.a", now: 1000 + 1080)
        #expect(renewed != first)
        tokens.discard(renewed, for: "com.a")
        #expect(try tokens.token(for: "com.a", now: 1000 + 1081) != renewed)
    }

    @Test func theLifetimeNeverExceedsAnHour() throws {
        #expect(
            AppStoreAPITokens(key: try Self.key(), lifetime: .seconds(7200), renewalMargin: .seconds(60)).lifetime
                == 3600)
    }

    @Test func aKeyThatIsNotAnECP256PrivateKeyIsRefusedWithoutShowingIt() throws {
        let rsa = try String(
            contentsOf: SharedTestData.packageRoot.appendingPathComponent("certs/test-only-keys/test-leaf.key.pem"),
            encoding: .utf8)
        for pem in [rsa, "not a key"] {
            do {
                _ = try AppStoreAPIKey(pem: pem, keyID: "KID", issuerID: "ISS")
                Issue.record("accepted")
            } catch {
                #expect(error.code == .invalidConfiguration)
                #expect(!error.reason.contains("BEGIN"))
            }
        }
        #expect(throws: RemoteError.self) { try AppStoreAPIKey(pem: rsa, keyID: "", issuerID: "ISS") }
        #expect(try Self.key().description == "AppStoreAPIKey(keyID: TESTKEY123)")
    }

    // MARK: - Answers and requests

    @Test func answersAreDecodedStrictly() throws {
        let ok = try AppStoreAPIResponse(status: 200, body: Array(#"{"hasMore":false}"#.utf8), retryAfter: nil)
        #expect(ok.object?["hasMore"] == .bool(false))
        let empty = try AppStoreAPIResponse(status: 202, body: [], retryAfter: nil)
        #expect(empty.object == nil)
        #expect(throws: RemoteError.self) {
            try AppStoreAPIResponse(status: 200, body: Array("[1]".utf8), retryAfter: nil)
        }
        #expect(throws: RemoteError.self) {
            try AppStoreAPIResponse(status: 200, body: Array("{".utf8), retryAfter: nil)
        }
        let notFound = try AppStoreAPIResponse(
            status: 404, body: Array(#"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#.utf8),
            retryAfter: nil)
        #expect(notFound.errorCode == 4_040_010)
        let limited = try AppStoreAPIResponse(status: 429, body: [], retryAfter: "1767225600123")
        #expect(limited.retryAfter?.millisecondsSince1970 == 1_767_225_600_123)
        for bad in ["soon", "-5", "1e9", "99999999999999999999", ""] {
            #expect(try AppStoreAPIResponse(status: 429, body: [], retryAfter: bad).retryAfter == nil)
        }
        // An error body that is not Apple's shape has no code, and is not a decoding failure.
        #expect(try AppStoreAPIResponse(status: 500, body: Array("<html>".utf8), retryAfter: nil).errorCode == nil)
    }

    @Test func idsCannotChangeThePathAndQueryValuesAreEncoded() throws {
        #expect(try AppStoreAPIRequest.pathSegment("2000000123456789", "transaction id") == "2000000123456789")
        for hostile in ["", "../notifications", "1?x=y", "1/2", "1%2F", String(repeating: "9", count: 129), "1 2"] {
            #expect(throws: RemoteError.self) { try AppStoreAPIRequest.pathSegment(hostile, "transaction id") }
        }
        let request = AppStoreAPIRequest(
            name: "t", method: .get, path: "/inApps/v2/history/1",
            query: [("productId", "com.a&b=c"), ("revision", "x/y+z")])
        #expect(request.target == "/inApps/v2/history/1?productId=com.a%26b%3Dc&revision=x%2Fy%2Bz")
    }
}
