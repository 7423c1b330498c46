public import Logging
public import ReceiptRemote
public import ReceiptVerification

extension FallbackVerifier {
    /// A fallback to Apple's verifyReceipt (or a stand-in at other URLs) over `HTTPClient.shared`.
    /// - Parameters:
    ///   - productionURL: Apple's production endpoint by default.
    ///   - sandboxURL: Apple's sandbox endpoint by default.
    ///   - deadline: the longest one remote verification may take, retries and the 21007 hop included.
    /// - Throws: ``ServerError`` ``ServerError/Code/invalidConfiguration`` when a URL is not absolute http(s).
    public static func apple(
        verifier: ReceiptVerifier, productionURL: String? = nil, sandboxURL: String? = nil,
        deadline: Duration = .seconds(30), logger: Logger
    ) throws(ServerError) -> FallbackVerifier {
        let configuration = VerifyReceiptClient.Configuration(
            productionURL: productionURL ?? VerifyReceiptClient.Configuration.appleProductionURL,
            sandboxURL: sandboxURL ?? VerifyReceiptClient.Configuration.appleSandboxURL, deadline: deadline)
        do {
            let client = try VerifyReceiptClient(configuration: configuration, logger: logger)
            return FallbackVerifier(verifier: verifier, remote: client, logger: logger)
        } catch {
            throw ServerError(.invalidConfiguration, "remote fallback: \(error.reason)")
        }
    }

    /// The production and sandbox URLs asked, for the startup log.
    package var remoteURLs: (production: String, sandbox: String)? {
        remote.map { ($0.configuration.productionURL, $0.configuration.sandboxURL) }
    }
}
