/// The store environment a receipt belongs to, as verifyReceipt names it.
public enum ReceiptEnvironment: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Receipt type `Production` (and `ProductionVPP`).
    case production = "Production"
    /// Receipt type `ProductionSandbox` (and `ProductionVPPSandbox`).
    case sandbox = "Sandbox"
    /// Xcode StoreKit Testing: receipt type `Xcode`, or any receipt anchored at the StoreKit Testing certificate.
    case xcode = "Xcode"

    /// Maps a receipt type (attribute 0) to its environment; `nil` for an unknown type.
    public init?(receiptType: String) {
        switch receiptType {
        case "Production", "ProductionVPP": self = .production
        case "ProductionSandbox", "ProductionVPPSandbox": self = .sandbox
        case "Xcode": self = .xcode
        default: return nil
        }
    }

    public var description: String { rawValue }
}
