import BER

/// A request's query, decoded once and exactly: `/v1/verify`'s options for a raw body, `/v1/entitlements`'
/// `account` and `at`. Each name and value has its `%XX` escapes replaced by their bytes once (a `+` stays a
/// `+`), and must then be UTF-8: an escape that is malformed, or bytes that are not UTF-8, are refused, never
/// repaired into U+FFFD (two accounts must never read as one). A name given twice is refused, as a JSON member
/// given twice is.
@_spi(Fuzzing) public struct QueryParameters: Sendable {
    /// The parameters, in order.
    public let pairs: [(name: String, value: String)]

    /// - Throws: ``ServerError`` ``ServerError/Code/invalidOption`` or ``ServerError/Code/duplicateMember``.
    public init(_ query: String?) throws(ServerError) {
        var pairs: [(name: String, value: String)] = []
        var names = Set<String>()
        for part in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let halves = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Hex.percentDecoded(halves[0]),
                let value = Hex.percentDecoded(halves.count > 1 ? halves[1] : "")
            else {
                throw ServerError(
                    .invalidOption, "the query holds a malformed %-escape or bytes that are not UTF-8")
            }
            guard names.insert(name).inserted else {
                throw ServerError(.duplicateMember, "the query gives \"\(name)\" more than once")
            }
            pairs.append((name, value))
        }
        self.pairs = pairs
    }

    public subscript(name: String) -> String? { pairs.first { $0.name == name }?.value }
}
