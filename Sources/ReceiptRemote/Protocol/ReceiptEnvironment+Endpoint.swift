public import ReceiptVerification

/// Apple's two verifyReceipt endpoints, named by the environment they serve: production
/// (`buy.itunes.apple.com`) and sandbox (`sandbox.itunes.apple.com`). Xcode StoreKit Testing receipts
/// have no endpoint of their own; Apple's sandbox is where they would be sent.
extension ReceiptEnvironment {
    /// The endpoint serving this environment: `.production` or `.sandbox` (Xcode: `.sandbox`).
    public var endpoint: ReceiptEnvironment { self == .production ? .production : .sandbox }

    /// The other endpoint: where 21007 (sandbox receipt) and 21008 (production receipt) send a call.
    package var otherEndpoint: ReceiptEnvironment { endpoint == .production ? .sandbox : .production }

    /// `production` or `sandbox`, as logs and messages name an endpoint.
    package var endpointName: String { endpoint == .production ? "production" : "sandbox" }
}
