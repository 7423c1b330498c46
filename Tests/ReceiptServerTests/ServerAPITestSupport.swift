import AppleStandIn
import Foundation
import Logging
import ReceiptForge
import ReceiptIntake
import ReceiptLedger
import ReceiptLedgerStores
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
import TestSupport
import Testing

/// Shared set-up for the App Store Server API tests of the intake and the server (issue 26): the stand-in serving
/// a customer's signed history, a client of it under the test in-app purchase key, an intake on a fresh ledger, and
/// receipts minted in-process from `fixtures/descriptions/valid-sha256.json`.
enum ServerAPITestSupport {
    /// The fixtures' app: the receipts' bundle id and the stand-in's.
    static let bundle = "org.example.receiptforge.sample"
    static let product = "org.example.receiptforge.monthly"
    static let appAppleID: Int64 = 1_234_567_890
    static let certs = SharedTestData.packageRoot.appendingPathComponent("certs")
    static let minter = JWSMinter(pki: TestPKI(directory: certs))
    static let keyID = "TESTKEY001"
    static let issuer = "issuer-for-tests"
    /// A day in milliseconds.
    static let day: Int64 = 86_400_000
    /// 2025-06-01T00:00:00Z: inside the test JWS leaf's validity (2024..2034), where the signed history starts.
    static let start = ReceiptDate(clampingMillisecondsSince1970: 1_748_736_000_000)

    static func keyPEM() throws -> String {
        try String(
            contentsOf: certs.appendingPathComponent("test-only-keys/test-app-store-api.key.pem"), encoding: .utf8)
    }

    /// Trusts the test roots (receipts and JWS); the operator's app is ``bundle`` (and its Apple id, for Production
    /// notifications).
    static func verifier() throws -> ReceiptVerifier {
        var anchors = TrustAnchors()
        for root in ["test-root.pem", "test-jws-root.pem"] {
            try anchors.addRoots(fromPath: certs.appendingPathComponent(root).path)
        }
        var policy = ReceiptPolicy()
        policy.acceptedBundleIDs = [bundle]
        policy.acceptedAppAppleIDs = [appAppleID]
        return ReceiptVerifier(configuration: .init(trustAnchors: anchors, policy: policy))
    }

    /// `count` monthly renewals of one customer from ``start``: ids `first`, `first + 1`, ….
    static func customer(
        first: Int64, count: Int, environment: ReceiptEnvironment = .sandbox, start: ReceiptDate = start
    ) -> [ServerAPITransaction] {
        ServerAPIData.customer(
            originalTransactionID: first, count: count, productID: product, bundleID: bundle,
            environment: environment, start: start)
    }

    /// A stand-in checking tokens of the test key, serving `sandbox` and `production` (each only when given).
    static func standIn(
        sandbox: ServerAPIData? = nil, production: ServerAPIData? = nil, pageSize: Int = 20
    ) throws -> AppleStandIn {
        var configuration = AppleStandIn.Configuration(
            serverAPIAuthorization: try ServerAPIAuthorization(
                privateKeyPEM: try keyPEM(), keyID: keyID, issuerID: issuer))
        configuration.serverAPIPageSize = pageSize
        let standIn = AppleStandIn(configuration: configuration)
        if let sandbox { try standIn.serveServerAPI(sandbox, in: .sandbox, minter: minter) }
        if let production { try standIn.serveServerAPI(production, in: .production, minter: minter) }
        return standIn
    }

    /// A client of the stand-in at `addresses`, verifying with `verifier`, quick retries.
    static func client(
        _ addresses: StandInAddresses, verifier: ReceiptVerifier, rate: Int = 50, deadline: Duration = .seconds(60)
    ) throws -> AppStoreServerAPIClient {
        try AppStoreServerAPIClient(
            key: try AppStoreAPIKey(pem: try keyPEM(), keyID: keyID, issuerID: issuer),
            verifier: verifier,
            configuration: .init(
                productionURL: addresses.productionAPIBaseURL, sandboxURL: addresses.sandboxAPIBaseURL,
                requestsPerSecond: rate, attemptTimeout: .seconds(60), deadline: deadline,
                retry: RetryPolicy(
                    maximumAttempts: 2, initialBackoff: .milliseconds(20), maximumBackoff: .milliseconds(40)),
                circuitBreaker: .init(failureThreshold: 50)),
            random: { 0.5 }, logger: quietLogger)
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "server-api-intake-test")
        logger.logLevel = .critical
        return logger
    }

    /// A ledger on a fresh SQLite file in `folder`.
    static func sqliteLedger(_ folder: TemporaryFolder) throws -> Ledger {
        Ledger(store: try SQLiteLedgerStore(path: folder.url.appendingPathComponent("ledger.sqlite").path))
    }

    /// The intake under test: local verification with `verifier`, the ledger, the client.
    static func intake(
        ledger: Ledger, verifier: ReceiptVerifier, serverAPI: AppStoreServerAPIClient?, sharedSecret: String? = nil
    ) -> ReceiptIntake {
        ReceiptIntake(
            decider: FallbackVerifier(verifier: verifier), ledger: ledger,
            rules: IntakeRules(sharedSecret: sharedSecret), maximumInFlight: 64, serverAPI: serverAPI)
    }

    /// The intake's refusal from `body`, `nil` when it answered.
    static func refusal<T>(_ body: () async throws(IntakeError) -> T) async -> IntakeError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    /// A valid receipt of ``bundle`` (Sandbox: `ProductionSandbox`), created 2025-06-15, holding `purchases`, signed
    /// under the test PKI as `valid-sha256.receipt` is.
    static func receipt(_ purchases: [InAppPurchaseDescription]) throws -> [UInt8] {
        var request = try MintRequest(
            json: Data(
                contentsOf: SharedTestData.packageRoot.appendingPathComponent(
                    "fixtures/descriptions/valid-sha256.json")))
        request.expected = nil
        var description = try #require(request.receipt)
        #expect(description.bundleID == bundle)
        description.inAppPurchases = purchases
        request.receipt = description
        return try request.mint(pki: TestPKI(directory: certs))
    }

    /// A monthly auto-renewable subscription purchase as a receipt lists it.
    static func subscription(_ id: String, original: String, purchased: String, expires: String)
        -> InAppPurchaseDescription
    {
        InAppPurchaseDescription(
            quantity: 1, productID: product, transactionID: id, purchaseDate: purchased,
            originalTransactionID: original,
            originalPurchaseDate: purchased, productType: 3, expiresDate: expires,
            webOrderLineItemID: Int64(id).map { $0 + 1 } ?? 1, cancellationDate: "", isTrialPeriod: false,
            isInIntroOfferPeriod: false)
    }
}
