/// The stand-in's two listeners, one per verifyReceipt endpoint.
public enum StandInEndpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Stands in for `buy.itunes.apple.com`.
    case production
    /// Stands in for `sandbox.itunes.apple.com`.
    case sandbox

    public var description: String { rawValue }
}
