import Foundation
import ReceiptCrypto
import ReceiptForge
import ReceiptModel
import TestSupport
import Testing

/// The committed JWS fixtures are what their requests mint (up to the ES256 signatures, which take a random nonce)
/// and their expectations use the verifier's reason codes.
@Suite struct JWSFixtureCatalogueTests {
    static let reasonCodes: Set<String> = [
        "jws.algorithm_rejected", "jws.signature_mismatch", "jws.certificates_missing", "jws.malformed",
        "chain.leaf_marker_missing", "chain.intermediate_marker_missing", "chain.expired", "chain.untrusted_root",
        "jws.x5c_order",
    ]

    @Test func catalogueCoversEveryVariantReasonAndPayloadType() throws {
        let requests = try JWSFixtures.names.map(JWSFixtures.request)
        #expect(Set(requests.compactMap(\.variant)) == Set(JWSHostileVariant.allCases))
        #expect(Set(requests.compactMap(\.expected.reason)) == Self.reasonCodes)
        #expect(
            Set(try requests.map { try $0.payload().kind })
                == ["transaction", "renewal_info", "app_transaction", "notification"])
    }

    /// The expectation file is byte-identical to the one the request writes, and says what the request says.
    @Test(arguments: JWSFixtures.names)
    func theExpectationIsTheRequests(name: String) throws {
        let request = try JWSFixtures.request(name)
        let committed = try Data(contentsOf: JWSFixtures.directory.appendingPathComponent("\(name).expected.json"))
        #expect(try request.expectationJSON(fileName: "\(name).jws") == committed)
        let expected = try SharedTestData.json(
            at: JWSFixtures.directory.appendingPathComponent("\(name).expected.json"))
        let verdict = try #require(expected["verdict"] as? String)
        #expect(expected["payload_type"] as? String == (try request.payload().kind))
        if verdict == "valid" {
            #expect(expected["reason"] == nil)
            #expect(name.hasPrefix("valid-") || name.hasPrefix("corpus-"))
            #expect(request.variant == nil)
        } else {
            #expect(verdict == "invalid")
            #expect(Self.reasonCodes.contains(try #require(expected["reason"] as? String)))
            #expect(request.variant != nil)
        }
        #expect((expected["valid_with_xcode_opt_in"] as? Bool) == (request.variant == .xcodeSigned ? true : nil))
    }

    /// Re-minting gives the same header and payload, except that a notification's nested JWS carry fresh signatures:
    /// there the nested signing inputs must match.
    @Test(arguments: JWSFixtures.names)
    func theCommittedJWSIsWhatItsRequestMints(name: String) throws {
        let request = try JWSFixtures.request(name)
        let committed = try JWSFixtures.committed(name)
        let fresh = try request.mint(pki: Fixtures.pki)
        let committedParts = committed.split(separator: ".", omittingEmptySubsequences: false)
        let freshParts = fresh.split(separator: ".", omittingEmptySubsequences: false)
        #expect(committedParts.count == freshParts.count)
        #expect(committedParts.first == freshParts.first, "header")
        guard try request.payload().kind == "notification" else {
            #expect(committedParts.dropFirst().first == freshParts.dropFirst().first, "payload")
            return
        }
        let committedPayload = try DecodedJWS(committed).payload
        let freshPayload = try DecodedJWS(fresh).payload
        #expect(Set(committedPayload.keys) == Set(freshPayload.keys))
        for holder in ["data", "appData"] {
            let committedData = committedPayload[holder] as? [String: Any] ?? [:]
            let freshData = freshPayload[holder] as? [String: Any] ?? [:]
            #expect(Set(committedData.keys) == Set(freshData.keys))
            for member in ["signedTransactionInfo", "signedRenewalInfo", "signedAppTransactionInfo"] {
                guard let nested = committedData[member] as? String else { continue }
                let again = try #require(freshData[member] as? String)
                #expect(try DecodedJWS(nested).signingInput == DecodedJWS(again).signingInput, "\(member)")
            }
        }
    }

    /// Every valid fixture's ES256 signature, and its nested ones, verify with the x5c leaf's key.
    @Test(arguments: JWSFixtures.names.filter { $0.hasPrefix("valid-") || $0.hasPrefix("corpus-") })
    func validFixturesCarryGenuineSignatures(name: String) throws {
        var pending = [try JWSFixtures.committed(name)]
        var checked = 0
        while let text = pending.popLast() {
            let jws = try DecodedJWS(text)
            let leaf = try Certificate(derEncoded: #require(jws.certificates?.first)[...])
            #expect(try leaf.publicKey.verifyES256(signature: jws.signature[...], message: jws.signingInput[...]))
            for holder in ["data", "appData"] {
                let data = jws.payload[holder] as? [String: Any] ?? [:]
                pending += ["signedTransactionInfo", "signedRenewalInfo", "signedAppTransactionInfo"].compactMap {
                    data[$0] as? String
                }
            }
            checked += 1
        }
        #expect(checked >= 1)
    }

    @Test func theNotificationBodyWrapsTheCommittedJWS() throws {
        let name = "valid-notification-did-renew"
        let body = try Data(contentsOf: JWSFixtures.directory.appendingPathComponent("\(name).body.json"))
        #expect([UInt8](body) == JWSMinter.notificationBody(signedPayload: try JWSFixtures.committed(name)))
    }
}
