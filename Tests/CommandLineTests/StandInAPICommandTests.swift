import Foundation
import TestSupport
import Testing

/// `apple-standin` serves its demo App Store Server API dataset on the listeners whose base URLs it prints, and
/// follows its API script.
@Suite struct StandInAPICommandTests {
    static func port(_ baseURL: String) throws -> Int {
        try #require(URL(string: baseURL)?.port)
    }

    @Test func theDemoDatasetIsServedAtThePrintedAPIBaseURLs() async throws {
        let standIn = try await StandInProcess([
            "--api-transactions", "3", "--api-notifications", "2", "--sandbox-api-script", "error:500:5000001",
        ])
        #expect(standIn.productionAPIURL.hasPrefix("http://127.0.0.1:"))
        #expect(!standIn.productionAPIURL.hasSuffix("/"))
        #expect(standIn.productionURL == standIn.productionAPIURL + "/verifyReceipt")
        let client = LoopbackHTTPClient()
        let production = try await client.get(
            port: try Self.port(standIn.productionAPIURL), "/inApps/v2/history/2000000000000002")
        #expect(production.status == 200)
        let history = try production.json()
        #expect(history["environment"] as? String == "Production")
        #expect((history["signedTransactions"] as? [String])?.count == 3)
        let notifications = try await client.post(
            port: try Self.port(standIn.productionAPIURL), "/inApps/v1/notifications/history",
            json: Data(#"{"startDate":0,"endDate":4102444800000}"#.utf8))
        #expect((try notifications.json()["notificationHistory"] as? [Any])?.count == 2)
        let sandbox = try await client.get(
            port: try Self.port(standIn.sandboxAPIURL), "/inApps/v1/transactions/1000000000000001")
        #expect(sandbox.status == 500)
        #expect(try sandbox.json()["errorCode"] as? Int == 5_000_001)
    }

    @Test func anUnknownAPIScriptTokenIsRefused() async throws {
        await #expect(throws: StandInProcess.NotStarted.self) {
            _ = try await StandInProcess(["--sandbox-api-script", "teapot"])
        }
    }
}
