/// A version 1 App Store Server Notification, parsed but not verified: its type, its password, the one member
/// Apple signed (`unified_receipt.latest_receipt`) and the unsigned ones, kept as hints.
public struct NotificationV1Call: Sendable {
    public let notificationType: String
    public let password: String?
    /// `unified_receipt.latest_receipt`: a base64 app receipt, the only part of the body Apple signed.
    public let latestReceipt: [UInt8]
    /// `{"verified":false,"latest_receipt_info":…,"pending_renewal_info":…}`: the unsigned members, kept for
    /// people, never acted on.
    public let unverifiedHints: String

    public init(notificationType: String, password: String?, latestReceipt: [UInt8], unverifiedHints: String) {
        self.notificationType = notificationType
        self.password = password
        self.latestReceipt = latestReceipt
        self.unverifiedHints = unverifiedHints
    }
}
