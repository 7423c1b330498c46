package import ReceiptVerification

/// One App Store Server API request the stand-in received, kept for tests to assert on.
package struct RecordedAPIRequest: Sendable, Hashable {
    /// The listener that received it: production is the Production environment, sandbox Sandbox.
    package let environment: ReceiptEnvironment
    /// `GET`, `POST` or `PUT`.
    package let method: String
    /// The path, without the query (`/inApps/v2/history/1000`).
    package let path: String
    /// The query string as sent, without `?` (empty when none): a test checks each page repeated the filters.
    package let query: String
    /// The body exactly as received.
    package let body: [UInt8]
    /// What the `Authorization` header held and whether it verified.
    package let authorization: BearerTokenCheck
    /// When it arrived, UNIX milliseconds by the stand-in's API clock (the wall clock unless configured).
    package let arrivalMilliseconds: Int64
    /// What the stand-in did: the scripted step or default it took (``ServerAPIBehaviour/apple`` otherwise).
    /// A refused token or a request inside a rate-limit window took no step and records `.unauthorized` or
    /// `.rateLimitedUntil`.
    package let behaviour: ServerAPIBehaviour

    /// The query's values of `name`, in order, percent-decoded (`+` left as is).
    package func queryValues(_ name: String) -> [String] {
        query.split(separator: "&").compactMap { pair -> String? in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.first.map(String.init) == name else { return nil }
            return parts.count == 2 ? (String(parts[1]).removingPercentEncodingIfValid) : ""
        }
    }
}

extension String {
    /// `%XX` sequences decoded as UTF-8; the text unchanged when a sequence is not valid.
    fileprivate var removingPercentEncodingIfValid: String {
        var bytes: [UInt8] = []
        var iterator = Array(utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue)
            else { return self }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
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
