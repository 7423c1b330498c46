import ReceiptLedger
public import ReceiptVerification

/// The operator's rules the intake holds every call to; a call may only narrow them, never loosen them.
public struct IntakeRules: Sendable {
    /// The app's shared secret: a call's password must be it (compared in constant time), and V1 notifications are
    /// authenticated by it. `nil`: any password is passed on, and V1 notifications are refused.
    public var sharedSecret: String?
    /// Answer status 0 on either verifyReceipt endpoint whatever the receipt's environment (no 21007 / 21008).
    public var acceptsAnyEnvironment: Bool
    /// What a notification must be to be recorded (``NotificationPolicy``).
    public var notifications: NotificationPolicy

    /// The notification policy defaults to Apple's rules with the ledger's own limits on a `notificationUUID`
    /// (`LedgerLimits.isNotificationID`): an id the ledger could not key on is refused before
    /// anything is recorded, whoever builds the rules.
    public init(
        sharedSecret: String? = nil, acceptsAnyEnvironment: Bool = false,
        notifications: NotificationPolicy? = nil
    ) {
        self.sharedSecret = sharedSecret
        self.acceptsAnyEnvironment = acceptsAnyEnvironment
        self.notifications = notifications ?? NotificationPolicy(isRecordableID: { LedgerLimits.isNotificationID($0) })
    }

    /// Whether `password` may be used: with a shared secret configured, only that secret (compared in constant
    /// time); without one, any.
    public func accepts(password: String?) -> Bool {
        guard let sharedSecret, let password else { return true }
        return Self.constantTimeEquals(Array(sharedSecret.utf8), Array(password.utf8))
    }

    /// Compares secrets without an early exit, so timing does not reveal a matching prefix.
    package static func constantTimeEquals(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        var difference = UInt8(left.count == right.count ? 0 : 1)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }
}
