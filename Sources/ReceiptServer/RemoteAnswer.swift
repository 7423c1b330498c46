/// What Apple's verifyReceipt answered when a remote fallback asked it.
public struct RemoteAnswer: Sendable {
    /// Apple's `status`.
    public var status: Int
    /// Apple's `environment`, when it sent one.
    public var environment: String?
    /// Apple's whole response body (JSON), passed through unchanged on the verifyReceipt endpoints.
    public var body: [UInt8]

    public init(status: Int, environment: String?, body: [UInt8]) {
        self.status = status
        self.environment = environment
        self.body = body
    }
}
