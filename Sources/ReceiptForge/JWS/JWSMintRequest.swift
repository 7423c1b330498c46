package import Foundation
package import ReceiptModel

/// A committed recipe for one JWS fixture (`fixtures/jws/descriptions/NAME.json`): exactly one payload
/// (`transaction`, `renewalInfo` or `notification` member by member, or `payload`, any JSON object, with its
/// `payloadKind`), an optional hostile `variant`, whether to write the HTTP body of a notification too, and the
/// verdict it is meant to get.
package struct JWSMintRequest: Hashable, Sendable, Codable {
    package var transaction: JWSTransactionDescription?
    package var renewalInfo: JWSRenewalInfoDescription?
    package var notification: NotificationV2Description?
    /// The kind of ``jsonPayload``: `transaction`, `renewal_info`, `app_transaction` or `notification`.
    package var payloadKind: String?
    /// The description's `payload`: JSON, members in the order written (read with the package's own JSON reader,
    /// which keeps order); nested JWS given as objects are minted.
    package var jsonPayload: JSONObject?
    /// The hostile change; absent for a valid JWS.
    package var variant: JWSHostileVariant?
    /// `true`: also write `NAME.body.json`, the `{"signedPayload": …}` body Apple POSTs (notifications).
    package var httpBody: Bool?
    /// The intended verdict.
    package var expected: JWSFixtureExpectation

    enum CodingKeys: String, CodingKey {
        case transaction, renewalInfo, notification, payloadKind, variant, httpBody, expected
    }

    /// Reads a request from JSON.
    package init(json: Data) throws(ForgeError) {
        do {
            self = try JSONDecoder().decode(JWSMintRequest.self, from: json)
        } catch {
            throw ForgeError(.invalidRequest, "not a JWS mint request: \(error)")
        }
        var reader = JSONReader([UInt8](json), maximumDepth: 32)
        do {
            jsonPayload = try reader.topLevelMembers().first { $0.key == "payload" }?.value.objectValue
        } catch {
            throw ForgeError(.invalidRequest, "not a JWS mint request: \(error.reason)")
        }
    }

    /// The one payload the request describes.
    /// - Throws: ``ForgeError/Code/invalidRequest`` unless exactly one of the three is present.
    package func payload() throws(ForgeError) -> JWSPayloadDescription {
        switch (transaction, renewalInfo, notification, jsonPayload) {
        case (let transaction?, nil, nil, nil): return .transaction(transaction)
        case (nil, let renewalInfo?, nil, nil): return .renewalInfo(renewalInfo)
        case (nil, nil, let notification?, nil): return .notification(notification)
        case (nil, nil, nil, let payload?):
            guard let kind = payloadKind.flatMap(JWSPayload.Kind.init(rawValue:)) else {
                throw ForgeError(.invalidRequest, "payload needs a payloadKind (transaction, renewal_info, …)")
            }
            return .json(payload, kind: kind)
        default:
            throw ForgeError(
                .invalidRequest, "a JWS request has exactly one of transaction, renewalInfo, notification, payload")
        }
    }

    /// Mints the JWS text (no newline).
    package func mint(pki: TestPKI) throws(ForgeError) -> String {
        try JWSMinter(pki: pki).mint(payload(), variant: variant)
    }

    /// The `NAME.expected.json` document for the fixture file `fileName`: sorted keys, so it is byte-stable even
    /// though the JWS itself is not.
    package func expectationJSON(fileName: String) throws(ForgeError) -> Data {
        let payload = try payload()
        let document = ExpectedJWSFixture(
            fixture: fileName, verdict: expected.verdict, reason: expected.reason, payloadType: payload.kind,
            validWithXcodeOptIn: expected.validWithXcodeOptIn, variant: variant?.rawValue,
            root: "certs/test-jws-root.pem",
            validationTime: payload.signedDate.map { RFC3339.format(secondsSince1970: $0 / 1000) },
            signedDate: payload.signedDate, exercises: expected.exercises, ledger: expected.ledger)
        return try FixtureExpectation.documentJSON(document)
    }
}

/// The `NAME.expected.json` document of a JWS fixture, with the keys the JWS verifier's tests read.
struct ExpectedJWSFixture: Codable {
    var fixture: String
    var verdict: String
    var reason: String?
    var payloadType: String
    var validWithXcodeOptIn: Bool?
    var variant: String?
    /// The extra trust anchor to verify against, relative to the repository.
    var root: String
    /// The payload's `signedDate` as RFC 3339 (seconds): the instant the chain is validated at.
    var validationTime: String?
    /// The payload's `signedDate`, milliseconds since 1970.
    var signedDate: Int64?
    var exercises: String
    var ledger: JWSFixtureExpectation.Ledger?

    enum CodingKeys: String, CodingKey {
        case fixture, verdict, reason, variant, root, exercises, ledger
        case payloadType = "payload_type"
        case validWithXcodeOptIn = "valid_with_xcode_opt_in"
        case validationTime = "validation_time"
        case signedDate = "signed_date"
    }
}
