@_spi(Fuzzing) public import ReceiptModel

/// One App Store Server API answer as received: the HTTP status, Apple's `errorCode` when it sent one, the
/// `Retry-After` of a 429, and for a success the JSON object (`nil` for an empty body, as Send Consumption
/// Information's 202).
///
/// Decoding is strict about what the client relies on: a success's body must be one JSON object (bounded depth), an
/// error's `errorCode` an integer when present, and `Retry-After` digits only; anything else is
/// `remote.malformed_response`. Apple's members the client does not read stay in ``object``.
@_spi(Fuzzing) public struct AppStoreAPIResponse: Sendable {
    /// The HTTP status.
    public let status: Int
    /// Apple's `errorCode` (`4040010`, …) of an error answer.
    public let errorCode: Int?
    /// A 429's `Retry-After`: the UNIX time, in milliseconds, before which nothing may be sent for the app.
    public let retryAfter: ReceiptDate?
    /// The body of a 2xx answer, when it had one.
    public let object: JSONObject?

    /// The deepest JSON the client reads: Apple's answers nest four levels (`data[].lastTransactions[]`).
    static let maximumDepth = 16

    /// Decodes an answer.
    /// - Parameters:
    ///   - retryAfter: the `Retry-After` header's value, when there was one.
    /// - Throws: ``RemoteError`` `remote.malformed_response`.
    public init(status: Int, body: [UInt8], retryAfter header: String?) throws(RemoteError) {
        self.status = status
        self.retryAfter = header.flatMap(Self.unixMilliseconds)
        guard (200..<300).contains(status) else {
            object = nil
            errorCode = Self.errorCode(body)
            return
        }
        errorCode = nil
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
            object = nil
            return
        }
        var reader = JSONReader(body, maximumDepth: Self.maximumDepth)
        guard case .object(let object)? = try? reader.document() else {
            throw RemoteError(
                .malformedResponse,
                "the App Store Server API answered HTTP \(status) with a body that is not a JSON object")
        }
        self.object = object
    }

    /// Apple's `errorCode` in an error body; `nil` when the body is empty (a 401) or not Apple's error shape.
    private static func errorCode(_ body: [UInt8]) -> Int? {
        var reader = JSONReader(body, maximumDepth: maximumDepth)
        guard case .object(let object)? = try? reader.document(), let code = object["errorCode"]?.integerValue,
            (0...99_999_999).contains(code)
        else { return nil }
        return Int(code)
    }

    /// `Retry-After` as Apple sends it: a UNIX time in milliseconds, 1 to 15 digits.
    private static func unixMilliseconds(_ text: String) -> ReceiptDate? {
        let trimmed = text.utf8.drop { $0 == 0x20 }.reversed().drop { $0 == 0x20 }.reversed()
        guard (1...15).contains(trimmed.count), trimmed.allSatisfy({ (0x30...0x39).contains($0) }),
            let value = Int64(String(decoding: trimmed, as: UTF8.self))
        else { return nil }
        return ReceiptDate(millisecondsSince1970: value)
    }
}
