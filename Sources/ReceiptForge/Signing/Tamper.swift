/// What a ``MintRequest`` changes after signing: the signature stays the original's, the carried
/// content does not, so a verifier must report a signature mismatch.
public struct Tamper: Hashable, Sendable, Codable {
    /// App receipts: the application version carried instead of the signed one.
    public var applicationVersion: String?
    /// iOS 6 receipts: `purchase-info` entries replaced after signing.
    public var purchaseInfo: [IOS6PlistEntry]?

    public init(applicationVersion: String? = nil, purchaseInfo: [IOS6PlistEntry]? = nil) {
        self.applicationVersion = applicationVersion
        self.purchaseInfo = purchaseInfo
    }
}
