extension ServerAPIBehaviour {
    /// Parses the command line's short form: `apple`, `429:MILLISECONDS` (Retry-After that long after arrival),
    /// `error:STATUS:CODE`, `401`, `forged:INDEX`, `malformed`, `drop`, `slow:MILLISECONDS` (then Apple's answer).
    /// `nil` for anything else.
    package init?(token: String) {
        let parts = token.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let numbers = parts.dropFirst().map { Int64($0) }
        switch (parts.first ?? "", numbers.count) {
        case ("apple", 0): self = .apple
        case ("401", 0): self = .unauthorized
        case ("malformed", 0): self = .malformed
        case ("drop", 0): self = .dropConnection
        case ("429", 1):
            guard let milliseconds = numbers[0], milliseconds >= 0 else { return nil }
            self = .rateLimited(retryAfterMilliseconds: milliseconds)
        case ("error", 2):
            guard let status = numbers[0], (400...599).contains(status), let code = numbers[1] else { return nil }
            self = .apiError(httpStatus: Int(status), errorCode: code)
        case ("forged", 1):
            guard let index = numbers[0], (0...Int64(Int32.max)).contains(index) else { return nil }
            self = .forgedItem(index: Int(index))
        case ("slow", 1):
            guard let milliseconds = numbers[0], milliseconds >= 0 else { return nil }
            self = .delayed(.milliseconds(milliseconds), then: .apple)
        default: return nil
        }
    }
}
