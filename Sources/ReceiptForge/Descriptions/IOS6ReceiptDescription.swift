/// The content of an iOS 6 style transaction receipt (`docs/receipt-format.md` §6).
///
/// `purchaseInfo` becomes the inner property list (`bid`, `bvrs`, `product-id`, `transaction-id`,
/// …) in the order given, so the signed bytes are fully determined by the description.
public struct IOS6ReceiptDescription: Hashable, Sendable, Codable {
    /// The inner `purchase-info` entries.
    public var purchaseInfo: [IOS6PlistEntry]
    /// `environment`, e.g. `Sandbox`; `nil` leaves it out.
    public var environment: String?
    /// `pod`, e.g. `100`; `nil` leaves it out.
    public var pod: String?
    /// `signing-status`, e.g. `0`; `nil` leaves it out.
    public var signingStatus: String?
    /// `true`: the outer plist on one line, `{"signature" = …;…}`, so its base64 starts with `eyJ` as a JWS's
    /// does; absent: one tab-indented entry per line, as Apple writes it.
    public var compact: Bool?

    public init(
        purchaseInfo: [IOS6PlistEntry], environment: String? = "Sandbox", pod: String? = "100",
        signingStatus: String? = "0"
    ) {
        self.purchaseInfo = purchaseInfo
        self.environment = environment
        self.pod = pod
        self.signingStatus = signingStatus
    }

    /// `purchaseInfo` with the values of `replacements` put in place (same keys, same order;
    /// keys not present yet are appended).
    public func purchaseInfo(replacing replacements: [IOS6PlistEntry]) -> [IOS6PlistEntry] {
        var entries = purchaseInfo
        for replacement in replacements {
            if let index = entries.firstIndex(where: { $0.key == replacement.key }) {
                entries[index].value = replacement.value
            } else {
                entries.append(replacement)
            }
        }
        return entries
    }
}
