public import ReceiptModel
public import ReceiptVerification

/// What a caller asks of ``FallbackVerifier`` beyond the receipt: the shared secret for Apple, whether it
/// wants the *current* subscription state, and per-call overrides of the local verification.
///
/// Its descriptions never show the shared secret.
public struct FallbackRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The app's shared secret, sent to Apple as `password`. Without it Apple returns no
    /// `latest_receipt_info`, so a subscription refresh is never attempted without it.
    public var password: String?
    /// verifyReceipt's `exclude-old-transactions`.
    public var excludeOldTransactions: Bool?
    /// "Now", read by the caller from its clock: asks whether a subscription is current at this instant.
    /// When the receipt is locally valid but its newest expiry is before this instant (and a
    /// ``password`` is given), Apple is asked for renewals the receipt cannot show. `nil`: the receipt
    /// alone is the question.
    public var subscriptionStateAt: ReceiptDate?
    /// Overrides the verifier's validation time for this call.
    public var validationTime: ValidationTime?
    /// The instant ``ReceiptVerification/ValidationTime/now`` stands for in this call; `nil` reads the
    /// verifier's clock (only when the validation time is `now`).
    public var now: ReceiptDate?
    /// Overrides the verifier's policy for this call (also applied to Apple's answer: bundle id, environment).
    public var policy: ReceiptPolicy?
    /// The verifyReceipt endpoint asked first (production by default, as Apple advises).
    public var startEnvironment: ReceiptEnvironment
    /// `false` forbids asking Apple for this call, whatever the verifier's configuration (a client may
    /// only turn the fallback off, never on).
    public var allowsRemote: Bool

    public init(
        password: String? = nil, excludeOldTransactions: Bool? = nil, subscriptionStateAt: ReceiptDate? = nil,
        validationTime: ValidationTime? = nil, now: ReceiptDate? = nil, policy: ReceiptPolicy? = nil,
        startEnvironment: ReceiptEnvironment = .production, allowsRemote: Bool = true
    ) {
        self.allowsRemote = allowsRemote
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
        self.subscriptionStateAt = subscriptionStateAt
        self.validationTime = validationTime
        self.now = now
        self.policy = policy
        self.startEnvironment = startEnvironment
    }

    public var description: String {
        var text = "FallbackRequest(password: \(password == nil ? "none" : "<redacted>")"
        if let subscriptionStateAt { text += ", subscriptionStateAt: \(subscriptionStateAt)" }
        if let validationTime { text += ", validationTime: \(validationTime)" }
        return text + ", start: \(startEnvironment))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}
