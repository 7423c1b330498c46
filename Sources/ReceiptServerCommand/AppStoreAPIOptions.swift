import ArgumentParser
import Foundation
import Logging
import ReceiptRemote
import ReceiptVerification

/// The App Store Server API flags (`serve`, `sync`, `notifications backfill`): the operator's in-app purchase key, its
/// id, the issuer id, the two base URLs and the rate. Without a key the API is off; a key without its ids (or ids
/// without a key) is a usage error. The key's text is read from its file and never printed.
struct AppStoreAPIOptions: ParsableArguments {
    @Option(
        name: .customLong("app-store-key"),
        help: ArgumentHelp(
            "The in-app purchase key (.p8, PEM) for the App Store Server API; turns the API on [RECEIPT_SERVER_APP_STORE_KEY].",
            valueName: "file"))
    var keyFile: String?

    @Option(
        name: .customLong("app-store-key-id"),
        help: ArgumentHelp("The key's id, from App Store Connect [RECEIPT_SERVER_APP_STORE_KEY_ID].", valueName: "kid"))
    var keyID: String?

    @Option(
        name: .customLong("app-store-issuer"),
        help: ArgumentHelp(
            "The issuer id of the team, from App Store Connect [RECEIPT_SERVER_APP_STORE_ISSUER].", valueName: "id"))
    var issuerID: String?

    @Option(
        name: .customLong("app-store-api-production-url"),
        help: ArgumentHelp(
            "The API's Production base URL [RECEIPT_SERVER_APP_STORE_API_PRODUCTION_URL]. Default https://api.storekit.apple.com.",
            valueName: "url"))
    var productionURL: String?

    @Option(
        name: .customLong("app-store-api-sandbox-url"),
        help: ArgumentHelp(
            "The API's Sandbox base URL [RECEIPT_SERVER_APP_STORE_API_SANDBOX_URL]. Default https://api.storekit-sandbox.apple.com.",
            valueName: "url"))
    var sandboxURL: String?

    @Option(
        name: .customLong("app-store-api-rate"),
        help: ArgumentHelp(
            "Requests per second per app in Production; Sandbox gets a tenth (at least 1) [RECEIPT_SERVER_APP_STORE_API_RATE]. Default 50.",
            valueName: "n"))
    var rate: Int?

    /// The largest key file read (a `.p8` is about 250 bytes).
    static let maximumKeySize = 16 * 1024

    /// The client, or `nil` when no key is configured.
    /// - Throws: `ValidationError` (exit 64) for a partial configuration, an unreadable or unusable key, a URL that
    ///   is not https (plain http only to loopback), or a rate below 1.
    func client(
        verifier: ReceiptVerifier, notificationPolicy: NotificationPolicy, _ env: ServeEnvironment, logger: Logger
    )
        throws -> AppStoreServerAPIClient?
    {
        let path = keyFile ?? env.text("RECEIPT_SERVER_APP_STORE_KEY")
        let kid = keyID ?? env.text("RECEIPT_SERVER_APP_STORE_KEY_ID")
        let issuer = issuerID ?? env.text("RECEIPT_SERVER_APP_STORE_ISSUER")
        guard path != nil || kid != nil || issuer != nil else { return nil }
        guard let path, let kid, let issuer else {
            let missing = [
                path == nil ? "--app-store-key [RECEIPT_SERVER_APP_STORE_KEY]" : nil,
                kid == nil ? "--app-store-key-id [RECEIPT_SERVER_APP_STORE_KEY_ID]" : nil,
                issuer == nil ? "--app-store-issuer [RECEIPT_SERVER_APP_STORE_ISSUER]" : nil,
            ].compactMap { $0 }
            throw ValidationError(
                "the App Store Server API needs a key, its id and the issuer id: add \(missing.joined(separator: " and "))"
            )
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size <= Self.maximumKeySize, let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError(
                "cannot read the App Store Server API key \(path) (a regular file of at most \(Self.maximumKeySize) bytes)"
            )
        }
        let rate = try env.number(self.rate, "RECEIPT_SERVER_APP_STORE_API_RATE", default: 50)
        guard rate >= 1 else { throw ValidationError("--app-store-api-rate takes a positive number of requests") }
        var configuration = AppStoreServerAPIClient.Configuration(requestsPerSecond: rate)
        if let url = productionURL ?? env.text("RECEIPT_SERVER_APP_STORE_API_PRODUCTION_URL") {
            configuration.productionURL = url
        }
        if let url = sandboxURL ?? env.text("RECEIPT_SERVER_APP_STORE_API_SANDBOX_URL") {
            configuration.sandboxURL = url
        }
        let key: AppStoreAPIKey
        do throws(RemoteError) {
            key = try AppStoreAPIKey(pem: String(decoding: data, as: UTF8.self), keyID: kid, issuerID: issuer)
        } catch {
            throw ValidationError("--app-store-key \(path) [RECEIPT_SERVER_APP_STORE_KEY]: \(error.reason)")
        }
        do throws(RemoteError) {
            return try AppStoreServerAPIClient(
                key: key, verifier: verifier, notificationPolicy: notificationPolicy, configuration: configuration,
                logger: logger)
        } catch {
            throw ValidationError("--app-store-api-production-url / --app-store-api-sandbox-url: \(error.reason)")
        }
    }
}
