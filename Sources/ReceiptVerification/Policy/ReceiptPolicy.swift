internal import ReceiptCrypto
package import ReceiptModel

/// What a caller requires of a genuine receipt beyond its signature: its app, environment, version and device.
///
/// Every field defaults to "accept anything", except that Xcode receipts also need
/// ``TrustAnchors/allowsXcodeStoreKitTesting``.
public struct ReceiptPolicy: Sendable {
    /// Accepted bundle ids; `nil` accepts any.
    public var acceptedBundleIDs: Set<String>?
    /// Accepted environments; all three by default.
    public var acceptedEnvironments: Set<ReceiptEnvironment>
    /// The lowest accepted app version (attribute 3), ordered as ``AppVersion`` orders them.
    public var minimumAppVersion: String?
    /// The only accepted app version (attribute 3), compared as ``AppVersion`` compares them.
    public var expectedAppVersion: String?
    /// When set, SHA-1(device id ‖ opaque value ‖ bundle id DER) must equal the receipt's attribute 5.
    public var deviceIdentifier: DeviceIdentifier?
    /// JWS only: the app Apple ids accepted where a payload names one (notifications, app transactions);
    /// `nil` accepts any.
    public var acceptedAppAppleIDs: Set<Int64>?
    /// JWS only: the longest time since `signedDate` accepted, against the caller's now; `nil` checks no age
    /// (Apple's own libraries check none offline).
    public var maximumSignedAge: Duration?

    /// A policy; every parameter defaults to "accept anything".
    public init(
        acceptedBundleIDs: Set<String>? = nil,
        acceptedEnvironments: Set<ReceiptEnvironment> = Set(ReceiptEnvironment.allCases),
        minimumAppVersion: String? = nil, expectedAppVersion: String? = nil, deviceIdentifier: DeviceIdentifier? = nil
    ) {
        self.acceptedBundleIDs = acceptedBundleIDs
        self.acceptedEnvironments = acceptedEnvironments
        self.minimumAppVersion = minimumAppVersion
        self.expectedAppVersion = expectedAppVersion
        self.deviceIdentifier = deviceIdentifier
    }

    /// Checks an app receipt's payload in `environment`; every failed requirement is one reason.
    /// The verifier applies it to receipts it authenticated; the remote fallback applies it to
    /// receipts Apple authenticated, with the environment of the endpoint that answered.
    package func evaluate(_ payload: ReceiptPayload, environment: ReceiptEnvironment?) -> [Reason] {
        var reasons = evaluateCommon(
            bundleID: payload.bundleID, appVersion: payload.applicationVersion, environment: environment)
        if let deviceIdentifier {
            reasons += Self.checkDeviceHash(deviceIdentifier, payload)
        }
        return reasons
    }

    /// Checks an iOS 6 receipt's signed purchase info. With `environment` `nil` (not yet known: the
    /// receipt's own environment entry is unsigned) the environment requirement is left to the caller.
    package func evaluate(_ receipt: IOS6TransactionReceipt, environment: ReceiptEnvironment?) -> [Reason] {
        var policy = self
        if environment == nil { policy.acceptedEnvironments = Set(ReceiptEnvironment.allCases) }
        return policy.evaluateCommon(
            bundleID: receipt.purchaseInfo.bundleID, appVersion: receipt.purchaseInfo.bundleVersion,
            environment: environment)
    }

    /// The checks that apply to every receipt format.
    func evaluateCommon(bundleID: String?, appVersion: String?, environment: ReceiptEnvironment?) -> [Reason] {
        var reasons: [Reason] = []
        if let acceptedBundleIDs, !acceptedBundleIDs.contains(bundleID ?? "") {
            reasons.append(Reason(.policyBundleIDRejected, "policy: bundle id \(bundleID ?? "(none)") is not accepted"))
        }
        if let environment {
            if !acceptedEnvironments.contains(environment) {
                reasons.append(Reason(.policyEnvironmentRejected, "policy: environment \(environment) is not accepted"))
            }
        } else if acceptedEnvironments.count != ReceiptEnvironment.allCases.count {
            reasons.append(Reason(.policyEnvironmentRejected, "policy: the receipt type names no known environment"))
        }
        if let minimumAppVersion {
            if !Self.version(appVersion, satisfies: minimumAppVersion, { $0 >= $1 }) {
                reasons.append(
                    Reason(
                        .policyAppVersionRejected,
                        "policy: app version \(appVersion ?? "(none)") is not at least \(minimumAppVersion)"))
            }
        }
        if let expectedAppVersion {
            if !Self.version(appVersion, satisfies: expectedAppVersion, ==) {
                reasons.append(
                    Reason(
                        .policyAppVersionRejected,
                        "policy: app version \(appVersion ?? "(none)") is not the expected \(expectedAppVersion)"))
            }
        }
        return reasons
    }

    /// Apple's device check: SHA-1(device id ‖ opaque value ‖ bundle id attribute's DER value) equals attribute 5.
    static func checkDeviceHash(_ device: DeviceIdentifier, _ payload: ReceiptPayload) -> [Reason] {
        guard let opaque = payload.opaqueValue, let bundle = payload.bundleIDValue, let expected = payload.sha1Hash
        else {
            return [Reason(.policyDeviceHashMismatch, "policy: the receipt lacks the opaque value, bundle id or hash")]
        }
        let computed: [UInt8]
        do {
            computed = try DigestAlgorithm.sha1.hash(concatenating: [device.bytes[...], opaque, bundle])
        } catch {
            // A digest OpenSSL could not compute says nothing about the receipt: undecided, never a mismatch.
            return [Reason(.internalError, "policy: the device hash cannot be computed: \(error)")]
        }
        guard computed.elementsEqual(expected) else {
            return [Reason(.policyDeviceHashMismatch, "policy: the device hash does not match device \(device)")]
        }
        return []
    }

    /// `true` when both texts are versions (``AppVersion``) and `relation` holds. A missing or unparsable version,
    /// on either side, never satisfies a requirement: an order that cannot be established is not guessed.
    static func version(
        _ text: String?, satisfies requirement: String, _ relation: (AppVersion, AppVersion) -> Bool
    ) -> Bool {
        guard let text, let version = AppVersion(text), let required = AppVersion(requirement) else { return false }
        return relation(version, required)
    }
}
