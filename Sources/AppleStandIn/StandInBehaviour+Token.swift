extension StandInBehaviour {
    /// Parses the command line's short form: `apple`, `status:N`, `retryable:N` (21100-style with
    /// `is-retryable: true`), `http:N`, `malformed`, `drop`, `huge:BYTES`, `slow:MILLISECONDS` (then Apple's answer).
    /// `nil` for anything else.
    package init?(token: String) {
        let parts = token.split(separator: ":", maxSplits: 1).map(String.init)
        let number = parts.count == 2 ? Int(parts[1]) : nil
        switch (parts.first ?? "", number) {
        case ("apple", nil) where parts.count == 1: self = .apple
        case ("malformed", nil) where parts.count == 1: self = .body("{\"status\": 0, \"receipt\": ")
        case ("drop", nil) where parts.count == 1: self = .dropConnection
        case ("status", let value?): self = .status(value)
        case ("retryable", let value?): self = .status(value, isRetryable: true)
        case ("http", let value?) where (100...599).contains(value): self = .httpStatus(value)
        case ("huge", let value?) where value >= 0: self = .hugeBody(bytes: value)
        case ("slow", let value?) where value >= 0: self = .delayed(.milliseconds(value), then: .apple)
        default: return nil
        }
    }
}
