/// One App Store Server API request as the client sends it: a method, Apple's path under the environment's base URL,
/// the query and the JSON body. The same value is sent again for every retry and every page's filters.
struct AppStoreAPIRequest: Sendable {
    enum Method: String, Sendable { case get = "GET", post = "POST", put = "PUT" }

    /// The endpoint's name in logs (`transaction_history`, …).
    var name: String
    var method: Method
    /// Apple's path, e.g. `/inApps/v2/history/2000000000000001`.
    var path: String
    /// Name and value pairs, in order; a name may repeat (`status=1&status=2`).
    var query: [(name: String, value: String)] = []
    /// The JSON body (POST, PUT).
    var body: [UInt8]?

    /// The path and query, percent-encoding each query value.
    var target: String {
        guard !query.isEmpty else { return path }
        return path + "?" + query.map { "\($0.name)=\(Self.percentEncoded($0.value))" }.joined(separator: "&")
    }

    /// `value` with every byte but RFC 3986's unreserved ones percent-encoded.
    static func percentEncoded(_ value: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in value.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// An id as a path segment: 1-128 letters, digits, `.`, `-` or `_` (transaction ids are digits, order ids
    /// letters and digits), so nothing given can change the path.
    /// - Throws: ``RemoteError`` `remote.invalid_argument`.
    static func pathSegment(_ id: String, _ what: String) throws(RemoteError) -> String {
        guard (1...128).contains(id.utf8.count), id.utf8.allSatisfy({ isUnreserved($0) && $0 != UInt8(ascii: "~") })
        else {
            throw RemoteError(.invalidArgument, "the \(what) is not 1-128 letters, digits, '.', '-' or '_'")
        }
        return id
    }
}
