/// A request's query, decoded once and exactly: `/v1/verify`'s options for a raw body, `/v1/entitlements`'
/// `account` and `at`. Each name and value has its `%XX` escapes replaced by their bytes once (a `+` stays a
/// `+`), and must then be UTF-8: an escape that is malformed, or bytes that are not UTF-8, are refused, never
/// repaired into U+FFFD (two accounts must never read as one). A name given twice is refused, as a JSON member
/// given twice is.
public struct QueryParameters: Sendable {
    /// The parameters, in order.
    public let pairs: [(name: String, value: String)]

    /// - Throws: ``ServerError`` ``ServerError/Code/invalidOption`` or ``ServerError/Code/duplicateMember``.
    public init(_ query: String?) throws(ServerError) {
        var pairs: [(name: String, value: String)] = []
        var names = Set<String>()
        for part in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let halves = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(halves[0]), let value = Self.decode(halves.count > 1 ? halves[1] : "") else {
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

    /// `text` with each `%XX` replaced by its byte, once; `nil` when an escape is malformed or the result is not
    /// UTF-8.
    public static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
