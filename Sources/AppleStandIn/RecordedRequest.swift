public import ReceiptModel
public import ReceiptVerification

/// One request the stand-in received, kept for tests to assert on.
public struct RecordedRequest: Sendable {
    /// The endpoint that received it.
    public let endpoint: ReceiptEnvironment
    /// The body exactly as received.
    public let body: [UInt8]
    /// `receipt-data`, when the body is a JSON object carrying it as a string.
    public let receiptData: String?
    /// `password`, when present.
    public let password: String?
    /// `exclude-old-transactions`, when present.
    public let excludeOldTransactions: Bool?
    /// `false` when the body is not a JSON object.
    public let isJSONObject: Bool

    init(endpoint: ReceiptEnvironment, body: [UInt8]) {
        self.endpoint = endpoint
        self.body = body
        var reader = JSONReader(body, maximumDepth: 64)
        let members = try? reader.flatMembers()
        isJSONObject = members != nil
        func member(_ key: String) -> JSONReader.Scalar? { members?.last { $0.key == key }?.value }
        func text(_ key: String) -> String? {
            if case .string(let bytes)? = member(key) { return String(decoding: bytes, as: UTF8.self) }
            return nil
        }
        receiptData = text("receipt-data")
        password = text("password")
        if case .bool(let flag)? = member("exclude-old-transactions") {
            excludeOldTransactions = flag
        } else {
            excludeOldTransactions = nil
        }
    }
}
