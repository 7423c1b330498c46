public import Foundation

/// A committed recipe for one JWS fixture (`fixtures/jws/descriptions/NAME.json`): exactly one payload
/// (`transaction`, `renewalInfo` or `notification`), an optional hostile `variant`, whether to write the HTTP body
/// of a notification too, and the verdict it is meant to get.
public struct JWSMintRequest: Hashable, Sendable, Codable {
    public var transaction: JWSTransactionDescription?
    public var renewalInfo: JWSRenewalInfoDescription?
    public var notification: NotificationV2Description?
    /// The hostile change; absent for a valid JWS.
    public var variant: JWSHostileVariant?
    /// `true`: also write `NAME.body.json`, the `{"signedPayload": …}` body Apple POSTs (notifications).
    public var httpBody: Bool?
    /// The intended verdict.
    public var expected: JWSFixtureExpectation

    /// Reads a request from JSON.
    public init(json: Data) throws(ForgeError) {
        do {
            self = try JSONDecoder().decode(JWSMintRequest.self, from: json)
        } catch {
            throw ForgeError(.invalidRequest, "not a JWS mint request: \(error)")
        }
    }

    /// The one payload the request describes.
    /// - Throws: ``ForgeError/Code/invalidRequest`` unless exactly one of the three is present.
    public func payload() throws(ForgeError) -> JWSPayloadDescription {
        switch (transaction, renewalInfo, notification) {
        case (let transaction?, nil, nil): return .transaction(transaction)
        case (nil, let renewalInfo?, nil): return .renewalInfo(renewalInfo)
        case (nil, nil, let notification?): return .notification(notification)
        default:
            throw ForgeError(.invalidRequest, "a JWS request has exactly one of transaction, renewalInfo, notification")
        }
    }

    /// Mints the JWS text (no newline).
    public func mint(pki: TestPKI) throws(ForgeError) -> String {
        try JWSMinter(pki: pki).mint(payload(), variant: variant)
    }

    /// The `NAME.expected.json` document for the fixture file `fileName`: sorted keys, so it is byte-stable even
    /// though the JWS itself is not.
    public func expectationJSON(fileName: String) throws(ForgeError) -> Data {
        let payload = try payload()
        let document = ExpectedJWSFixture(
            fixture: fileName, verdict: expected.verdict, reason: expected.reason, payloadType: payload.kind,
            validWithXcodeOptIn: expected.validWithXcodeOptIn, variant: variant?.rawValue,
            root: "certs/test-jws-root.pem",
            validationTime: payload.signedDate.map { RFC3339.format(secondsSince1970: $0 / 1000) },
            signedDate: payload.signedDate, exercises: expected.exercises)
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

    enum CodingKeys: String, CodingKey {
        case fixture, verdict, reason, variant, root, exercises
        case payloadType = "payload_type"
        case validWithXcodeOptIn = "valid_with_xcode_opt_in"
        case validationTime = "validation_time"
        case signedDate = "signed_date"
    }
}
