extension Duration {
    /// The longest timeout or deadline, in seconds, a configuration may set: one day.
    package static let longestConfiguredSeconds: Double = 86_400

    /// A timeout or deadline given in seconds (a command-line flag or an environment variable), or `nil` when
    /// it is not a finite, positive number of seconds no longer than ``longestConfiguredSeconds``.
    ///
    /// Exists so that `--remote-deadline 1e300` is a usage error rather than a trap when converting it to an
    /// integer count. Rounds up to whole microseconds, so a tiny positive value never becomes zero.
    public init?(configuredSeconds seconds: Double) {
        guard seconds.isFinite, seconds > 0, seconds <= Self.longestConfiguredSeconds else { return nil }
        self = .microseconds(Int64((seconds * 1_000_000).rounded(.up)))
    }
}
