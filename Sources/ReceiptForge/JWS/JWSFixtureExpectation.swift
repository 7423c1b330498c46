/// What a verifier that trusts `certs/test-jws-root.pem` as an extra root, and validates the chain at the payload's
/// `signedDate`, should conclude about a JWS fixture.
package struct JWSFixtureExpectation: Hashable, Sendable, Codable {
    /// `valid` or `invalid`.
    package var verdict: String
    /// The deciding reason code (`jws.algorithm_rejected`, `chain.expired`, …); `nil` when valid.
    package var reason: String?
    /// `true` for the Xcode-signed fixture: valid once the verifier opts in to Xcode's StoreKit testing key.
    package var validWithXcodeOptIn: Bool?
    /// One sentence on what the fixture exercises.
    package var exercises: String
    /// What recording the (valid) JWS leaves in an empty ledger; docs/jws.md says why for each notification type.
    package var ledger: Ledger?

    /// A ledger's state after recording one JWS, as the corpus tests read it back.
    package struct Ledger: Hashable, Sendable, Codable {
        /// The notification's id (`notificationUUID`), when the JWS is a notification.
        package var notification: String?
        /// The transaction ids now held, in ascending order.
        package var transactions: [String]
        /// The ones of them held as refunded or revoked.
        package var refunded: [String]
        /// The original transaction id whose renewal state is now held, when the JWS carried renewal info.
        package var renewal: String?

        package init(notification: String?, transactions: [String], refunded: [String], renewal: String?) {
            self.notification = notification
            self.transactions = transactions
            self.refunded = refunded
            self.renewal = renewal
        }
    }

    package init(
        verdict: String, reason: String? = nil, validWithXcodeOptIn: Bool? = nil, exercises: String,
        ledger: Ledger? = nil
    ) {
        self.verdict = verdict
        self.reason = reason
        self.validWithXcodeOptIn = validWithXcodeOptIn
        self.exercises = exercises
        self.ledger = ledger
    }
}
