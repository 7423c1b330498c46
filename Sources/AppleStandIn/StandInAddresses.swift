public import ReceiptVerification

/// Where a running stand-in listens.
public struct StandInAddresses: Sendable, Hashable {
    /// The bound host (127.0.0.1 in tests).
    public let host: String
    /// The production listener's port (ephemeral when 0 was asked for).
    public let productionPort: Int
    /// The sandbox listener's port.
    public let sandboxPort: Int

    public init(host: String, productionPort: Int, sandboxPort: Int) {
        self.host = host
        self.productionPort = productionPort
        self.sandboxPort = sandboxPort
    }

    /// `http://HOST:PORT/verifyReceipt` of the production listener.
    public var productionURL: String { "http://\(host):\(productionPort)/verifyReceipt" }
    /// `http://HOST:PORT/verifyReceipt` of the sandbox listener.
    public var sandboxURL: String { "http://\(host):\(sandboxPort)/verifyReceipt" }

    /// The port of one endpoint.
    public func port(_ endpoint: ReceiptEnvironment) -> Int {
        endpoint == .production ? productionPort : sandboxPort
    }
}
