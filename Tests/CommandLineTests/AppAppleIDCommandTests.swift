import Foundation
import TestSupport
import Testing

/// `--app-apple-id`, as the built binaries take it: checked in Production only, as Apple's verifiers do, so an
/// operator who configures it for Production keeps every Sandbox notification.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AppAppleIDCommandTests {
    static let certs = SharedTestData.packageRoot.appendingPathComponent("certs")
    static let corpus = SharedTestData.packageRoot.appendingPathComponent("fixtures/jws")
    static let production = corpus.appendingPathComponent("corpus-production-did-renew.body.json")
    static let sandbox = corpus.appendingPathComponent("corpus-did-renew.body.json")
    static let testNotification = corpus.appendingPathComponent("corpus-test.body.json")

    @Test func verifyLocalChecksTheAppAppleIDInProductionOnly() async throws {
        let command = CommandRunner("verify-local")
        let root = Self.certs.appendingPathComponent("test-jws-root.pem").path
        func code(_ appAppleID: String, _ file: URL) async throws -> (Int32, String?) {
            let outcome = try await command.run([
                "--format", "json", "--root", root, "--app-apple-id", appAppleID, file.path,
            ])
            let line = try #require(try outcome.jsonLines().first)
            return (outcome.status, (line["reasons"] as? [[String: Any]])?.first?["code"] as? String)
        }
        #expect(try await code("1234567890", Self.production) == (0, nil))
        #expect(try await code("99", Self.production) == (1, "policy.app_apple_id_rejected"))
        #expect(try await code("99", Self.sandbox) == (0, nil), "Sandbox: not compared")
    }

    /// The server: a Sandbox notification is recorded whatever app Apple id is configured, a Production one only
    /// for a configured id; a refused one records nothing.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: SharedTestData.executable("receipt-server").path),
            "receipt-server is not built"))
    func theServerChecksTheAppAppleIDInProductionOnly() async throws {
        let folder = try TemporaryFolder()
        let server = try await ReceiptServerProcess(
            [
                "--ledger", "sqlite:" + folder.url.appendingPathComponent("ledger.sqlite").path, "--bundle-id",
                "org.example.receiptforge.sample", "--app-apple-id", "99", "--root",
                Self.certs.appendingPathComponent("test-jws-root.pem").path,
            ], in: folder.url)
        defer { server.kill() }
        let client = LoopbackHTTPClient()
        let path = "/v1/notifications/appstore"
        let sandbox = try await client.post(port: server.port, path, json: Data(contentsOf: Self.sandbox))
        #expect(sandbox.status == 200, "\(String(decoding: sandbox.body, as: UTF8.self))")
        let test = try await client.post(port: server.port, path, json: Data(contentsOf: Self.testNotification))
        #expect(test.status == 200, "\(String(decoding: test.body, as: UTF8.self))")
        let production = try await client.post(port: server.port, path, json: Data(contentsOf: Self.production))
        #expect(production.status == 422, "\(String(decoding: production.body, as: UTF8.self))")
        let held = try await client.get(port: server.port, "/v1/transactions/2000000912000045")
        #expect(held.status == 404, "the refused Production notification recorded nothing")
    }
}
