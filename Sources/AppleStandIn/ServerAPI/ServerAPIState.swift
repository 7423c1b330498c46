import ReceiptVerification

/// The App Store Server API's mutable state, behind the stand-in's lock: data, scripts, the record, rate limits.
struct ServerAPIState: Sendable {
    var data: [ReceiptEnvironment: MintedServerAPIData] = [:]
    var scripts: [ReceiptEnvironment: [ServerAPIBehaviour]] = [:]
    var defaults: [ReceiptEnvironment: ServerAPIBehaviour] = [:]
    var recorded: [RecordedAPIRequest] = []
    /// Per bundle id, the `Retry-After` instant (UNIX ms) of the latest 429.
    var limitedUntil: [String: Int64] = [:]
    var violations: [RateLimitViolation] = []
    /// Test notifications requested, by token: the signed payload to report.
    var testNotifications: [String: TestNotification] = [:]
    var testNotificationCount = 0

    /// One requested test notification.
    struct TestNotification: Sendable {
        var signedPayload: String
        var sentMilliseconds: Int64
    }

    /// Takes the environment's next scripted behaviour, else its default, else ``ServerAPIBehaviour/apple``.
    mutating func nextBehaviour(_ environment: ReceiptEnvironment) -> ServerAPIBehaviour {
        if var script = scripts[environment], !script.isEmpty {
            let next = script.removeFirst()
            scripts[environment] = script
            return next
        }
        return defaults[environment] ?? .apple
    }
}
