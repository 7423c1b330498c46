import Foundation

/// One request the stand-in received, kept for tests to assert on.
public struct RecordedRequest: Sendable {
    /// The endpoint that received it.
    public let endpoint: StandInEndpoint
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

    init(endpoint: StandInEndpoint, body: [UInt8]) {
        self.endpoint = endpoint
        self.body = body
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        isJSONObject = object != nil
        receiptData = object?["receipt-data"] as? String
        password = object?["password"] as? String
        excludeOldTransactions = object?["exclude-old-transactions"] as? Bool
    }
}
