public import ReceiptModel
internal import ReceiptCrypto

/// What a caller requires of a genuine receipt beyond its signature: its app, environment, version and device.
///
/// Every field defaults to "accept anything", except that Xcode receipts also need
/// ``TrustAnchors/allowsXcodeStoreKitTesting``.
public struct ReceiptPolicy: Sendable {
    /// Accepted bundle ids; `nil` accepts any.
    public var acceptedBundleIDs: Set<String>?
    /// Accepted environments; all three by default.
    public var acceptedEnvironments: Set<ReceiptEnvironment>
    /// The lowest accepted app version (attribute 3), compared numerically by dot-separated parts.
    public var minimumAppVersion: String?
    /// The only accepted app version (attribute 3), compared numerically by dot-separated parts.
    public var expectedAppVersion: String?
    /// When set, SHA-1(device id ‖ opaque value ‖ bundle id DER) must equal the receipt's attribute 5.
    public var deviceIdentifier: DeviceIdentifier?

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
    public func evaluate(_ payload: ReceiptPayload, environment: ReceiptEnvironment?) -> [Reason] {
        var reasons = evaluateCommon(
            bundleID: payload.bundleID, appVersion: payload.applicationVersion, environment: environment)
        if let deviceIdentifier {
            reasons += Self.checkDeviceHash(deviceIdentifier, payload)
        }
        return reasons
    }

    /// Checks an iOS 6 receipt's signed purchase info. With `environment` `nil` (not yet known: the
    /// receipt's own environment entry is unsigned) the environment requirement is left to the caller.
    public func evaluate(_ receipt: IOS6TransactionReceipt, environment: ReceiptEnvironment?) -> [Reason] {
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
            if appVersion.map({ Self.compareVersions($0, minimumAppVersion) < 0 }) ?? true {
                reasons.append(
                    Reason(
                        .policyAppVersionRejected,
                        "policy: app version \(appVersion ?? "(none)") is below the minimum \(minimumAppVersion)"))
            }
        }
        if let expectedAppVersion {
            if appVersion.map({ Self.compareVersions($0, expectedAppVersion) != 0 }) ?? true {
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
        let computed = try? DigestAlgorithm.sha1.hash(concatenating: [device.bytes[...], opaque, bundle])
        guard let computed, computed.elementsEqual(expected) else {
            return [Reason(.policyDeviceHashMismatch, "policy: the device hash does not match device \(device)")]
        }
        return []
    }

    /// Compares dotted versions part by part: numerically when both parts are numbers, else as text;
    /// missing parts count as 0 (`1.2` == `1.2.0`).
    static func compareVersions(_ lhs: String, _ rhs: String) -> Int {
        let left = lhs.split(separator: ".", omittingEmptySubsequences: false)
        let right = rhs.split(separator: ".", omittingEmptySubsequences: false)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : "0"
            let b = index < right.count ? right[index] : "0"
            if let x = Int(a), let y = Int(b) {
                if x != y { return x < y ? -1 : 1 }
            } else if a != b {
                return a < b ? -1 : 1
            }
        }
        return 0
    }
}
