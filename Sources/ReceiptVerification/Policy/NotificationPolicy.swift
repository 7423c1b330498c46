public import ReceiptModel

/// The operator's rules for App Store Server Notifications V2, as a value the verifier evaluates
/// (``ReceiptVerifier/verifyNotification(_:policy:receiptPolicy:now:)``) after the signature, the chain and the
/// receipt policy: what a well-signed notification must also be before anything may be recorded from it.
///
/// Evaluated in order; the first rule broken turns the verdict `invalid` (``VerificationResult/adding(_:)``):
/// 1. **App Apple id by environment.** A Production notification is taken only when the operator configured the
///    app's Apple ids (``ReceiptPolicy/acceptedAppAppleIDs``), as Apple's libraries require; the receipt policy
///    has already held the notification's id to them. Sandbox and Xcode notifications carry none to check.
/// 2. **Never from Xcode.** A notification signed for Xcode's StoreKit testing (trusted only with the opt-in) is
///    verified, never recorded: its key ships with Xcode.
/// 3. **An id to record it by.** Its `notificationUUID` must be one ``isRecordableID`` takes: Apple retries a
///    notification until it is answered, and a retry is told from a new notification by that id alone.
///
/// The rules the verifier always applies (the configured bundle ids, the nested payloads about the same app,
/// environment and subscription) come before these; the ledger then records a notification once per
/// `notificationUUID` (a retry is a duplicate) and applies a renewal state only when Apple signed it later than the
/// one held (`signedDate`).
public struct NotificationPolicy: Sendable {
    /// Rule 1: a Production notification needs the app's Apple ids configured.
    public var requiresAppAppleIDInProduction: Bool
    /// Rule 3: whether a `notificationUUID` can key the notification's record (the ledger's id limits).
    public var isRecordableID: @Sendable (String) -> Bool

    public init(
        requiresAppAppleIDInProduction: Bool = true,
        isRecordableID: @escaping @Sendable (String) -> Bool = { !$0.isEmpty }
    ) {
        self.requiresAppAppleIDInProduction = requiresAppAppleIDInProduction
        self.isRecordableID = isRecordableID
    }

    /// The first rule a valid notification's verdict breaks, or `nil`.
    public func violation(of verdict: JWSVerdict, receiptPolicy: ReceiptPolicy) -> Reason? {
        guard verdict.isValid, case .notification(let payload)? = verdict.payload else { return nil }
        if requiresAppAppleIDInProduction, verdict.environment == .production,
            receiptPolicy.acceptedAppAppleIDs == nil
        {
            return Reason(
                .policyAppAppleIDRejected,
                "jws: a Production notification needs the app's Apple id configured (--app-apple-id)")
        }
        if verdict.environment == .xcode {
            return Reason(.jwsMalformed, "jws: a notification signed for Xcode's StoreKit testing is never recorded")
        }
        guard let id = payload.notificationUUID, isRecordableID(id) else {
            return Reason(.jwsMalformed, "jws: the notification has no usable notificationUUID")
        }
        return nil
    }
}

extension ReceiptVerifier {
    /// Verifies an App Store Server Notification V2 `signedPayload` (its kind known from the member that held it),
    /// then holds it to `policy`: the verdict is `valid` only when the notification may be recorded.
    /// - Parameters:
    ///   - text: the `signedPayload` JWS as received.
    ///   - policy: the operator's notification rules.
    ///   - receiptPolicy: overrides ``Configuration/policy`` for this call.
    ///   - now: the instant "now" stands for; `nil` reads the configured clock, only when needed.
    public func verifyNotification(
        _ text: ArraySlice<UInt8>, policy: NotificationPolicy, receiptPolicy: ReceiptPolicy? = nil,
        now: ReceiptDate? = nil
    ) -> JWSVerdict {
        let verdict = verifyJWS(text, kind: .notification, policy: receiptPolicy, now: now)
        guard let violation = policy.violation(of: verdict, receiptPolicy: receiptPolicy ?? configuration.policy)
        else { return verdict }
        return verdict.adding(violation)
    }
}
