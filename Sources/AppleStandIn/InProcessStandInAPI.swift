public import Foundation
import ReceiptForge
import ReceiptModel
import ReceiptVerification

/// The stand-in's App Store Server API running in this process on loopback, with one demo customer per environment
/// (as `apple-standin --api-transactions N`: transaction ids 2000000000000001 + i in Production, 1000000000000001 + i
/// in Sandbox, monthly renewals from 2026-01-01), and tokens checked against a key.
///
/// SPI for the Benchmarks package, which measures the client's calls against it: a package of its own (so its
/// benchmark dependency stays out of the product graph), which `package` access does not reach.
@_spi(Benchmarks) public final class InProcessStandInAPI: Sendable {
    /// `http://127.0.0.1:PORT` of the Production and the Sandbox listener.
    public let productionAPIBaseURL: String
    public let sandboxAPIBaseURL: String
    private let task: Task<Void, any Error>

    private init(productionAPIBaseURL: String, sandboxAPIBaseURL: String, task: Task<Void, any Error>) {
        self.productionAPIBaseURL = productionAPIBaseURL
        self.sandboxAPIBaseURL = sandboxAPIBaseURL
        self.task = task
    }

    /// Mints the demo data and starts both listeners on ephemeral loopback ports.
    /// - Parameters:
    ///   - transactions: the demo customer's renewals in each environment.
    ///   - certs: the folder of the test PKI (`certs/`) the answers' JWS are minted under.
    ///   - privateKeyPEM: the in-app purchase key whose tokens are accepted (with `keyID` and `issuerID`).
    /// - Throws: when the PKI or the key cannot be read, or a listener cannot start.
    public static func start(
        transactions: Int, bundleID: String, certs: URL, privateKeyPEM: String, keyID: String, issuerID: String
    ) async throws -> InProcessStandInAPI {
        var configuration = AppleStandIn.Configuration()
        configuration.serverAPIAuthorization = try ServerAPIAuthorization(
            privateKeyPEM: privateKeyPEM, keyID: keyID, issuerID: issuerID)
        let standIn = AppleStandIn(configuration: configuration)
        let minter = JWSMinter(pki: TestPKI(directory: certs))
        let start = ReceiptDate(clampingMillisecondsSince1970: 1_767_225_600_000)  // 2026-01-01
        for (environment, first) in [
            (ReceiptEnvironment.production, Int64(2_000_000_000_000_001)), (.sandbox, 1_000_000_000_000_001),
        ] {
            let made = ServerAPIData.customer(
                originalTransactionID: first, count: transactions, productID: "com.example.monthly",
                bundleID: bundleID, environment: environment, start: start)
            try standIn.serveServerAPI(
                ServerAPIData(bundleID: bundleID, appAppleID: 1_234_567_890, transactions: made), in: environment,
                minter: minter)
        }
        let (ready, continuation) = AsyncStream<StandInAddresses>.makeStream()
        let task = Task {
            defer { continuation.finish() }
            try await standIn.run { addresses in continuation.yield(addresses) }
        }
        var iterator = ready.makeAsyncIterator()
        guard let addresses = await iterator.next() else {
            try await task.value
            throw StandInError(.notStarted, "the listeners stopped before reporting their ports")
        }
        return InProcessStandInAPI(
            productionAPIBaseURL: addresses.productionAPIBaseURL, sandboxAPIBaseURL: addresses.sandboxAPIBaseURL,
            task: task)
    }

    /// Stops both listeners.
    public func stop() {
        task.cancel()
    }

    deinit { task.cancel() }
}
