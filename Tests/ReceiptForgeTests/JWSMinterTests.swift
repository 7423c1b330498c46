import Foundation
import ReceiptCrypto
import ReceiptForge
import ReceiptModel
import TestSupport
import Testing

/// The JWS minter: compact serialization, Apple's header and payload members, ES256 signatures that verify.
@Suite struct JWSMinterTests {
    static let trustedChain = ["test-jws-leaf", "test-jws-intermediate", "test-jws-root"]

    @Test func aMintedTransactionIsThreeSegmentsWithTheTrustedChainInX5c() throws {
        let description = try JWSFixtures.baseTransaction()
        let jws = try DecodedJWS(JWSFixtures.minter.mint(description))
        #expect(jws.segments.count == 3)
        #expect(jws.algorithm == "ES256")
        #expect(jws.keyID == nil)
        #expect(Set(jws.header.keys) == ["alg", "x5c"])
        #expect(try jws.certificates == Self.trustedChain.map(JWSFixtures.certificateDER))
        guard case .transaction(let transaction) = description else {
            Issue.record("the base request is not a transaction")
            return
        }
        #expect(jws.payloadBytes == transaction.payloadJSON())
    }

    /// The package's own JWS decoder reads back what the description says, member by member.
    @Test func thePayloadDecodesToTheDescription() throws {
        guard case .transaction(let described) = try JWSFixtures.baseTransaction() else {
            Issue.record("the base request is not a transaction")
            return
        }
        let jws = try CompactJWS(JWSFixtures.minter.mint(.transaction(described)))
        guard case .transaction(let decoded)? = JWSPayload(guessing: jws.payload) else {
            Issue.record("not decoded as a transaction")
            return
        }
        #expect(decoded.transactionID == described.transactionId)
        #expect(decoded.originalTransactionID == described.originalTransactionId)
        #expect(decoded.webOrderLineItemID == described.webOrderLineItemId)
        #expect(decoded.bundleID == described.bundleId)
        #expect(decoded.productID == described.productId)
        #expect(decoded.type == .known(.autoRenewableSubscription))
        #expect(decoded.purchaseDate?.millisecondsSince1970 == described.purchaseDate)
        #expect(decoded.expiresDate?.millisecondsSince1970 == described.expiresDate)
        #expect(decoded.signedDate?.millisecondsSince1970 == described.signedDate)
        #expect(decoded.quantity == 1)
        #expect(decoded.environment == .known(.sandbox))
        #expect(decoded.appAccountToken == described.appAccountToken)
        #expect(decoded.appTransactionID == described.appTransactionId)
        #expect(jws.payload.integer("price") == 4990)
        #expect(jws.certificates?.count == 3)
    }

    @Test func absentMembersAreLeftOutNotNull() throws {
        let request = try JWSFixtures.request("valid-transaction-non-consumable")
        let jws = try DecodedJWS(request.mint(pki: Fixtures.pki))
        let text = String(decoding: jws.payloadBytes, as: UTF8.self)
        #expect(!text.contains("null"))
        for absent in ["expiresDate", "webOrderLineItemId", "subscriptionGroupIdentifier", "revocationDate"] {
            #expect(jws.payload[absent] == nil, "\(absent) is written")
        }
        #expect(jws.payload["type"] as? String == "Non-Consumable")
        #expect(jws.payload["purchaseDate"] as? Int == 1_738_566_930_000)
    }

    @Test func theES256SignatureIs64BytesAndVerifiesWithTheLeafKey() throws {
        let jws = try DecodedJWS(JWSFixtures.minter.mint(JWSFixtures.baseTransaction()))
        #expect(jws.signature.count == 64)
        let key = try JWSFixtures.publicKey("test-jws-leaf")
        #expect(try key.verifyES256(signature: jws.signature[...], message: jws.signingInput[...]))
        var changed = jws.signingInput
        changed[changed.count - 1] ^= 0x01
        #expect(!(try key.verifyES256(signature: jws.signature[...], message: changed[...])))
        #expect(
            !(try JWSFixtures.publicKey("test-jws-leaf-other-key").verifyES256(
                signature: jws.signature[...], message: jws.signingInput[...])))
    }

    /// OpenSSL's own command line, in another process, accepts the signature: the R‖S conversion is right.
    @Test(.enabled(if: OpenSSLTool.executable != nil, "openssl is not on PATH"))
    func opensslVerifiesTheES256Signature() throws {
        let jws = try DecodedJWS(JWSFixtures.minter.mint(JWSFixtures.baseTransaction()))
        let leaf = try JWSFixtures.certificateDER("test-jws-leaf")
        #expect(
            try OpenSSLJWSCheck.es256Verifies(signature: jws.signature, message: jws.signingInput, certificate: leaf))
        var wrong = jws.signature
        wrong[40] ^= 0x80
        #expect(!(try OpenSSLJWSCheck.es256Verifies(signature: wrong, message: jws.signingInput, certificate: leaf)))
    }

    /// ES256 takes a random nonce: the signing input repeats, the signature does not, and both verify.
    @Test func twoMintsDifferOnlyInTheSignature() throws {
        let description = try JWSFixtures.baseTransaction()
        let first = try DecodedJWS(JWSFixtures.minter.mint(description))
        let second = try DecodedJWS(JWSFixtures.minter.mint(description))
        #expect(first.signingInput == second.signingInput)
        #expect(first.signature != second.signature)
        let key = try JWSFixtures.publicKey("test-jws-leaf")
        #expect(try key.verifyES256(signature: second.signature[...], message: second.signingInput[...]))
    }

    @Test func aNotificationNestsWellFormedSignedTransactionAndRenewalInfo() throws {
        let request = try JWSFixtures.request("valid-notification-did-renew")
        guard case .notification(let described) = try request.payload(), let data = described.data,
            let transaction = data.transaction, let renewalInfo = data.renewalInfo
        else {
            Issue.record("the DID_RENEW request lacks its nested payloads")
            return
        }
        let outer = try DecodedJWS(request.mint(pki: Fixtures.pki))
        let key = try JWSFixtures.publicKey("test-jws-leaf")
        #expect(try key.verifyES256(signature: outer.signature[...], message: outer.signingInput[...]))
        #expect(outer.payload["notificationType"] as? String == "DID_RENEW")
        #expect(outer.payload["version"] as? String == "2.0")
        let payloadData = try #require(outer.payload["data"] as? [String: Any])
        #expect(payloadData["appAppleId"] as? Int == 1_234_567_890)
        #expect(payloadData["status"] as? Int == 1)
        let nested = [
            ("signedTransactionInfo", transaction.payloadJSON()), ("signedRenewalInfo", renewalInfo.payloadJSON()),
        ]
        for (member, payload) in nested {
            let text = try #require(payloadData[member] as? String, "\(member) missing")
            let inner = try DecodedJWS(text)
            #expect(inner.algorithm == "ES256")
            #expect(try inner.certificates == Self.trustedChain.map(JWSFixtures.certificateDER))
            #expect(inner.payloadBytes == payload, "\(member) payload")
            #expect(try key.verifyES256(signature: inner.signature[...], message: inner.signingInput[...]))
            #expect(throws: Never.self) { try CompactJWS(text) }
        }
        let decoded = try CompactJWS(request.mint(pki: Fixtures.pki))
        guard case .notification(let notification)? = JWSPayload(guessing: decoded.payload) else {
            Issue.record("not decoded as a notification")
            return
        }
        #expect(notification.bundleID == data.bundleId)
        #expect(notification.environment == .known(.sandbox))
        #expect(notification.signedTransactionInfo != nil && notification.signedRenewalInfo != nil)
    }

    @Test func aRefundNotificationCarriesTheRevocation() throws {
        let jws = try CompactJWS(JWSFixtures.request("valid-notification-refund").mint(pki: Fixtures.pki))
        guard case .notification(let notification)? = JWSPayload(guessing: jws.payload),
            let nested = notification.signedTransactionInfo
        else {
            Issue.record("not a notification with a transaction")
            return
        }
        #expect(notification.notificationType == .known(.refund))
        #expect(notification.signedRenewalInfo == nil)
        guard case .transaction(let transaction)? = JWSPayload(guessing: try CompactJWS(nested).payload) else {
            Issue.record("the nested JWS is not a transaction")
            return
        }
        #expect(transaction.revocationDate?.millisecondsSince1970 == 1_750_156_200_000)
        #expect(transaction.revocationReason == .known(.other))
    }

    @Test func theNotificationBodyWrapsTheSignedPayload() throws {
        let jws = "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"
        let body = JWSMinter.notificationBody(signedPayload: jws)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        #expect(object.count == 1)
        #expect(object["signedPayload"] as? String == jws)
    }

    @Test func es256RefusesAnRSAKey() throws {
        let key = try PrivateKey(pem: Fixtures.pki.privateKeyPEM(named: "test-leaf"))
        #expect(throws: CryptoError.self) { try key.signES256(message: [1, 2, 3]) }
        #expect(throws: CryptoError.self) { try PrivateKey(hmacSecret: []) }
    }

    /// HS256 as the forge makes it equals OpenSSL's command-line HMAC of the same input and key.
    @Test(.enabled(if: OpenSSLTool.executable != nil, "openssl is not on PATH"))
    func hs256MatchesOpenSSL() throws {
        let secret = try PrivateKey(pem: Fixtures.pki.privateKeyPEM(named: "test-jws-leaf")).subjectPublicKeyInfo()
        let message = Array("eyJhbGciOiJIUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9".utf8)
        let tag = try PrivateKey(hmacSecret: secret).signHS256(message: message[...])
        #expect(tag.count == 32)
        #expect(tag == (try OpenSSLJWSCheck.hmacSHA256(key: secret, message: message)))
    }
}
