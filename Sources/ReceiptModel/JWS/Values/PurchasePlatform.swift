/// The platform an app was first bought on (an app transaction's `originalPlatform`).
public enum PurchasePlatform: String, Sendable, Hashable, CaseIterable {
    case iOS
    case macOS
    case tvOS
    case visionOS
}
