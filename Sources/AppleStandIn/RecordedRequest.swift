import ReceiptModel
package import ReceiptVerification

/// One request the stand-in received, kept for tests to assert on.
package struct RecordedRequest: Sendable {
    /// The endpoint that received it.
    package let endpoint: ReceiptEnvironment
    /// The body exactly as received.
    package let body: [UInt8]
    /// `receipt-data`, when the body is a JSON object carrying it as a string.
    package let receiptData: String?
    /// `password`, when present.
    package let password: String?
    /// `exclude-old-transactions`, when present.
    package let excludeOldTransactions: Bool?
    /// `false` when the body is not a JSON object.
    package let isJSONObject: Bool

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
