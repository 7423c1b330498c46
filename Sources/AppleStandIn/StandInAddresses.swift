package import ReceiptVerification

/// Where a running stand-in listens.
package struct StandInAddresses: Sendable, Hashable {
    /// The bound host (127.0.0.1 in tests).
    package let host: String
    /// The production listener's port (ephemeral when 0 was asked for).
    package let productionPort: Int
    /// The sandbox listener's port.
    package let sandboxPort: Int

    package init(host: String, productionPort: Int, sandboxPort: Int) {
        self.host = host
        self.productionPort = productionPort
        self.sandboxPort = sandboxPort
    }

    /// `http://HOST:PORT/verifyReceipt` of the production listener.
    package var productionURL: String { "http://\(host):\(productionPort)/verifyReceipt" }
    /// `http://HOST:PORT/verifyReceipt` of the sandbox listener.
    package var sandboxURL: String { "http://\(host):\(sandboxPort)/verifyReceipt" }

    /// `http://HOST:PORT`, the App Store Server API base URL of the production listener (the Production
    /// environment); a client appends Apple's paths (`/inApps/v1/transactions/…`).
    package var productionAPIBaseURL: String { "http://\(host):\(productionPort)" }
    /// `http://HOST:PORT`, the App Store Server API base URL of the sandbox listener (the Sandbox environment).
    package var sandboxAPIBaseURL: String { "http://\(host):\(sandboxPort)" }

    /// The App Store Server API base URL of one environment.
    package func apiBaseURL(_ environment: ReceiptEnvironment) -> String {
        environment == .production ? productionAPIBaseURL : sandboxAPIBaseURL
    }

    /// The port of one endpoint.
    package func port(_ endpoint: ReceiptEnvironment) -> Int {
        endpoint == .production ? productionPort : sandboxPort
    }
}
