/// The `data` of an App Store Server Notification V2 (Apple's `data` object): the app, the environment and the
/// subscription's transaction and renewal info, which the forge mints as nested JWS of their own.
public struct NotificationDataDescription: Hashable, Sendable, Codable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    /// `Sandbox` or `Production`.
    public var environment: String?
    /// Signed as the nested `signedTransactionInfo` JWS.
    public var transaction: JWSTransactionDescription?
    /// Signed as the nested `signedRenewalInfo` JWS.
    public var renewalInfo: JWSRenewalInfoDescription?
    /// The subscription's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int64?

    /// A description with every member absent; set the ones the notification carries.
    public init() {}
}
