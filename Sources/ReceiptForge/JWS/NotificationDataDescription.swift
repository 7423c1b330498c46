/// The `data` of an App Store Server Notification V2 (Apple's `data` object): the app, the environment and the
/// subscription's transaction and renewal info, which the forge mints as nested JWS of their own.
package struct NotificationDataDescription: Hashable, Sendable, Codable {
    package var appAppleId: Int64?
    package var bundleId: String?
    package var bundleVersion: String?
    /// `Sandbox` or `Production`.
    package var environment: String?
    /// Signed as the nested `signedTransactionInfo` JWS.
    package var transaction: JWSTransactionDescription?
    /// Signed as the nested `signedRenewalInfo` JWS.
    package var renewalInfo: JWSRenewalInfoDescription?
    /// The subscription's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    package var status: Int64?

    /// A description with every member absent; set the ones the notification carries.
    package init() {}
}
