import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptModel
@_spi(Fuzzing) import ReceiptRemote
@_spi(Fuzzing) import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

/// `/verifyReceipt` and `/sandbox/verifyReceipt` driven in-process (HummingbirdTesting `.router`).
@Suite("verifyReceipt routes", .timeLimit(.minutes(2)))
struct VerifyReceiptRouteTests {
    typealias Support = ServerTestSupport

    /// POSTs `body` to `path` in-process and returns the response.
    static func post(
        _ body: ByteBuffer, to path: String = "/verifyReceipt", service: ReceiptService? = nil
    ) async throws -> TestResponse {
        let app = try (service ?? Support.service(allowXcode: true)).makeApplication()
        return try await app.test(.router) { client in
            try await client.execute(uri: path, method: .post, body: body)
        }
    }

    @Test(
        "the receipt object of every real receipt is AppleReceiptJSON's rendering, byte for byte",
        .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage),
        arguments: SharedTestData.receiptNames)
    func realReceiptRendersLikeTheCLI(name: String) async throws {
        let bytes = try SharedTestData.receiptBytes(name)
        let payload = try AppReceipt(berEncoded: bytes).payload
        let sandbox = payload.receiptType != "Production"
        let response = try await Self.post(
            Support.appleRequest(bytes), to: sandbox ? "/sandbox/verifyReceipt" : "/verifyReceipt")
        #expect(response.status == .ok)
        let body = Support.bytes(response.body)
        #expect(try Support.status(response.body) == 0)
        // With the server's clock fixed, the expected object is exactly the CLI's rendering plus request_date*.
        let expected = AppleReceiptJSON.render(payload, requestDate: Support.fixedNow)
        #expect(try Support.receiptObjectBytes(body) == expected)
        // And minus request_date*, it equals the CLI's rendering, key for key.
        var served = try #require(try Support.object(response.body)["receipt"] as? [String: Any])
        for key in ["request_date", "request_date_ms", "request_date_pst"] {
            #expect(served.removeValue(forKey: key) != nil)
        }
        let cli = try #require(
            try JSONSerialization.jsonObject(with: Data(AppleReceiptJSON.render(payload))) as? NSDictionary)
        #expect(NSDictionary(dictionary: served) == cli)
    }

    @Test("a receipt sent again is answered with the same bytes, its in_app entries copied from the last answer")
    func aReceiptSentAgainIsAnsweredTheSame() async throws {
        let bytes = try Data(
            contentsOf: Support.fixturesDirectory.appendingPathComponent("valid-large-1200-purchases.receipt"))
        let receipt = [UInt8](bytes)
        let service = try Support.service()
        let verdict = AttributedVerdict.local(try Support.verifier().verify(receipt))
        let payload = try AppReceipt(berEncoded: receipt).payload
        let path = payload.receiptType == "Production" ? "/verifyReceipt" : "/sandbox/verifyReceipt"
        let requests = [false, false, true, false]
        // The answers whose entries are rendered once (latest_receipt_info repeats enough of them): the first
        // renders them, the others copy them.
        let renderingOnce = requests.filter { excludeOld in
            let latest = LatestReceiptInfo.positions(in: payload, excludingOld: excludeOld)
            return LatestReceiptInfo.renderedOnce(payload, latestCount: latest.count) != nil
        }.count
        try #require(renderingOnce >= 2, "the fixture's answers do not render their entries once")
        for excludeOld in requests {
            let response = try await Self.post(
                Support.appleRequest(receipt, excludeOld: excludeOld), to: path, service: service)
            let expected = VerifyReceiptBody.answer(
                verdict, status: 0, requestDate: Support.fixedNow, excludeOldTransactions: excludeOld,
                receiptData: nil as ArraySlice<UInt8>?)
            #expect(Support.bytes(response.body) == expected)
        }
        #expect(service.routes.renderings.statistics.hits == renderingOnce - 1)
        #expect(service.routes.renderings.statistics.misses == 1)
        let metrics = try await service.makeApplication().test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get)
        }
        #expect(
            String(buffer: metrics.body).contains("receipt_server_rendered_receipts_hits_total \(renderingOnce - 1)"))
    }

    @Test(
        "the served receipt object and status equal verify-local's JSON line, receipt by receipt",
        .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage),
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: SharedTestData.executable("verify-local").path),
            "verify-local is not built: CLI comparison skipped"))
    func servedReceiptsEqualTheCLIOutput() async throws {
        let names = SharedTestData.receiptNames
        let files = names.map { SharedTestData.receiptsDirectory.appendingPathComponent("\($0).receipt").path }
        // The test service trusts Xcode's certificate and validates at the creation date; so does this.
        let cli = try await CommandRunner("verify-local").run(["--format", "json", "--allow-xcode"] + files)
        #expect(cli.status == 0, "\(cli.standardError)")
        let lines = try cli.jsonLines()
        try #require(lines.count == names.count)
        for (name, line) in zip(names, lines) {
            let printed = try #require(line["receipt"] as? [String: Any], "\(name)")
            let sandbox = printed["receipt_type"] as? String != "Production"
            let response = try await Self.post(
                Support.appleRequest(SharedTestData.receiptBytes(name)),
                to: sandbox ? "/sandbox/verifyReceipt" : "/verifyReceipt")
            #expect(try Support.status(response.body) == line["status"] as? Int, "\(name)")
            var served = try #require(try Support.object(response.body)["receipt"] as? [String: Any], "\(name)")
            for key in ["request_date", "request_date_ms", "request_date_pst"] { served.removeValue(forKey: key) }
            #expect(NSDictionary(dictionary: served) == NSDictionary(dictionary: printed), "\(name)")
        }
    }

    @Test(
        "rc-sampleapp matches Apple's real verifyReceipt response on every receipt-derived key",
        .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func matchesApplesRealResponse() async throws {
        let name = "rc-sampleapp-sandbox-2020"
        let apple = try SharedTestData.json(
            at: SharedTestData.receiptsDirectory.appendingPathComponent("\(name).verifyReceipt.json"))
        let bytes = try SharedTestData.receiptBytes(name)
        let response = try await Self.post(
            Support.appleRequest(bytes, password: "a-shared-secret"), to: "/sandbox/verifyReceipt")
        let ours = try Support.object(response.body)

        #expect(ours["status"] as? Int == apple["status"] as? Int)
        #expect(ours["environment"] as? String == apple["environment"] as? String)
        let appleReceipt = try #require(apple["receipt"] as? [String: Any])
        let ourReceipt = try #require(ours["receipt"] as? [String: Any])
        var compared = 0
        for (key, value) in appleReceipt where !key.hasPrefix("request_date") && key != "in_app" {
            let mine = try #require(ourReceipt[key], "missing receipt.\(key)")
            #expect(Support.jsonKind(mine) == Support.jsonKind(value), "receipt.\(key)")
            #expect("\(mine)" == "\(value)", "receipt.\(key)")
            compared += 1
        }
        #expect(compared >= 10)
        try Self.expectEntries(ourReceipt["in_app"], equal: appleReceipt["in_app"], label: "in_app")
        // latest_receipt_info: every key but subscription_group_identifier (Apple's catalogue, not the receipt).
        try Self.expectEntries(
            ours["latest_receipt_info"], equal: apple["latest_receipt_info"], label: "latest_receipt_info")
        // latest_receipt is echoed with a password; pending_renewal_info cannot be derived locally.
        #expect(ours["latest_receipt"] as? String == Base64.encode(bytes))
        #expect(ours["pending_renewal_info"] == nil)
    }

    /// Same count, same order, and every key Apple shows (except catalogue data) with equal value and kind.
    static func expectEntries(_ ours: Any?, equal apple: Any?, label: String) throws {
        let mine = try #require(ours as? [[String: Any]], "\(label) missing")
        let theirs = try #require(apple as? [[String: Any]])
        #expect(mine.count == theirs.count, "\(label) count")
        for (index, (entry, reference)) in zip(mine, theirs).enumerated() {
            for (key, value) in reference where key != "subscription_group_identifier" {
                let served = entry[key]
                #expect(served.map(Support.jsonKind) == Support.jsonKind(value), "\(label)[\(index)].\(key)")
                #expect(served.map { "\($0)" } == "\(value)", "\(label)[\(index)].\(key)")
            }
        }
    }

    @Test("production endpoint answers 21007 for a sandbox receipt, and the sandbox endpoint verifies it")
    func sandboxReceiptOnProductionEndpoint() async throws {
        let receipt = try Support.fixture("valid-sha256.receipt")  // ProductionSandbox
        let production = try await Self.post(Support.appleRequest(receipt), to: "/verifyReceipt")
        #expect(production.status == .ok)
        #expect(try Support.status(production.body) == 21007)
        let sandbox = try await Self.post(Support.appleRequest(receipt), to: "/sandbox/verifyReceipt")
        #expect(try Support.status(sandbox.body) == 0)
        #expect(try Support.object(sandbox.body)["environment"] as? String == "Sandbox")
    }

    @Test("sandbox endpoint answers 21008 for a production receipt, and the production endpoint verifies it")
    func productionReceiptOnSandboxEndpoint() async throws {
        let receipt = try Support.fixture("valid-sha1.receipt")  // Production
        let sandbox = try await Self.post(Support.appleRequest(receipt), to: "/sandbox/verifyReceipt")
        #expect(try Support.status(sandbox.body) == 21008)
        let production = try await Self.post(Support.appleRequest(receipt), to: "/verifyReceipt")
        #expect(try Support.status(production.body) == 0)
        #expect(try Support.object(production.body)["environment"] as? String == "Production")
    }

    @Test("--accept-any-environment answers 0 on both endpoints")
    func acceptsAnyEnvironment() async throws {
        let service = try Support.service(Support.configuration(acceptsAnyEnvironment: true))
        for path in ["/verifyReceipt", "/sandbox/verifyReceipt"] {
            for name in ["valid-sha256.receipt", "valid-sha1.receipt"] {
                let response = try await Self.post(
                    Support.appleRequest(try Support.fixture(name)), to: path, service: service)
                #expect(try Support.status(response.body) == 0, "\(name) on \(path)")
            }
        }
    }

    @Test(
        "a forged receipt is 21003 on both endpoints (the environment check never hides a failure)",
        arguments: ["tampered-payload.receipt", "wrong-signing-key.receipt", "lookalike-apple-chain.receipt"])
    func forgeriesAreNotAuthenticated(name: String) async throws {
        for path in ["/verifyReceipt", "/sandbox/verifyReceipt"] {
            let response = try await Self.post(Support.appleRequest(try Support.fixture(name)), to: path)
            #expect(response.status == .ok)
            #expect(try Support.status(response.body) == 21003, "\(name) on \(path)")
            #expect(response.headers[values: .init("X-Receipt-Reason")!].count == 1)
        }
    }

    @Test(
        "unreadable JSON and a missing or mistyped receipt-data are 21000",
        arguments: [
            "not json", "{\"receipt-data\": ", "[]", "{}", "{\"receipt-data\": 12}", "{\"password\": \"x\"}",
            "{\"receipt-data\": \"QUJD\"} trailing", "{\"receipt-data\": \"QUJD\", \"exclude-old-transactions\": 3}",
        ])
    func badRequestJSONIs21000(body: String) async throws {
        let response = try await Self.post(ByteBuffer(string: body))
        #expect(response.status == .ok)
        #expect(try Support.status(response.body) == 21000)
    }

    @Test(
        "bad base64 and bytes that are not a receipt are 21002",
        arguments: [
            "{\"receipt-data\": \"%%%not base64%%%\"}", "{\"receipt-data\": \"QUJDREVGR0g=\"}",
            "{\"receipt-data\": \"\"}",
        ])
    func malformedReceiptDataIs21002(body: String) async throws {
        let response = try await Self.post(ByteBuffer(string: body))
        #expect(response.status == .ok)
        #expect(try Support.status(response.body) == 21002)
    }

    @Test("an escaped base64 string (\\/ as PHP writes it) decodes the same")
    func escapedSlashesDecode() async throws {
        let receipt = try Support.fixture("valid-sha256.receipt")
        let escaped = Base64.encode(receipt).replacingOccurrences(of: "/", with: "\\/")
        let response = try await Self.post(
            ByteBuffer(string: "{\"receipt-data\":\"\(escaped)\"}"), to: "/sandbox/verifyReceipt")
        #expect(try Support.status(response.body) == 0)
    }

    @Test("a shared secret that differs from the configured one is 21004; the right one is accepted")
    func sharedSecretMismatch() async throws {
        let service = try Support.service(Support.configuration(sharedSecret: "right-secret"))
        let receipt = try Support.fixture("valid-sha256.receipt")
        let wrong = try await Self.post(
            Support.appleRequest(receipt, password: "wrong"), to: "/sandbox/verifyReceipt", service: service)
        #expect(try Support.status(wrong.body) == 21004)
        let right = try await Self.post(
            Support.appleRequest(receipt, password: "right-secret"), to: "/sandbox/verifyReceipt", service: service)
        #expect(try Support.status(right.body) == 0)
    }

    @Test("an iOS 6 receipt is 21003 locally: its chain cannot be completed without Apple")
    func ios6IsNotAuthenticatedLocally() async throws {
        let text = try Support.fixture("ios6-valid.b64")
        let body = "{\"receipt-data\":\"\(String(decoding: text, as: UTF8.self))\"}"
        let response = try await Self.post(ByteBuffer(string: body), to: "/sandbox/verifyReceipt")
        #expect(try Support.status(response.body) == 21003)
        #expect(response.headers[.init("X-Receipt-Reason")!] == "ios6.chain_incomplete")
    }

    @Test(
        "Xcode receipts are answered on the sandbox endpoint with environment Xcode, 21007 on production",
        .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func xcodeReceipts() async throws {
        let receipt = try SharedTestData.receiptBytes("tpi-cyclemaps-xcode-2020")
        let sandbox = try await Self.post(Support.appleRequest(receipt), to: "/sandbox/verifyReceipt")
        #expect(try Support.status(sandbox.body) == 0)
        #expect(try Support.object(sandbox.body)["environment"] as? String == "Xcode")
        let production = try await Self.post(Support.appleRequest(receipt), to: "/verifyReceipt")
        #expect(try Support.status(production.body) == 21007)
    }

    @Test(
        "validation at now: an expired real leaf is 21003 chain.expired",
        .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func validationAtNow() async throws {
        var configuration = Support.configuration(validationTime: .now)
        configuration.clock = { ReceiptDate(rfc3339: "2026-11-22T00:00:00Z")! }
        let service = try Support.service(configuration)
        let response = try await Self.post(
            Support.appleRequest(try SharedTestData.receiptBytes("rc-sampleapp-sandbox-2020")),
            to: "/sandbox/verifyReceipt",
            service: service)
        #expect(try Support.status(response.body) == 21003)
        #expect(response.headers[.init("X-Receipt-Reason")!] == "chain.expired")
    }

    @Test(
        "latest_receipt_info holds only auto-renewables, oldest first; exclude-old keeps the newest per subscription",
        .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func excludeOldTransactions() async throws {
        let bytes = try SharedTestData.receiptBytes("rc-sampleapp-sandbox-2020")
        let all = try Support.object(
            try await Self.post(Support.appleRequest(bytes), to: "/sandbox/verifyReceipt").body)
        let entries = try #require(all["latest_receipt_info"] as? [[String: Any]])
        let dates = entries.compactMap { ($0["purchase_date_ms"] as? String).flatMap { Int64($0) } }
        #expect(dates == dates.sorted())
        #expect(all["latest_receipt"] == nil)  // no password, no latest_receipt
        let trimmed = try Support.object(
            try await Self.post(Support.appleRequest(bytes, excludeOld: true), to: "/sandbox/verifyReceipt").body)
        let kept = try #require(trimmed["latest_receipt_info"] as? [[String: Any]])
        let subscriptions = Set(entries.compactMap { $0["original_transaction_id"] as? String })
        #expect(kept.count == subscriptions.count)
        #expect(kept.last?["transaction_id"] as? String == entries.last?["transaction_id"] as? String)
    }

    @Test("a receipt without subscriptions has no latest_receipt_info")
    func noSubscriptionsNoLatestInfo() async throws {
        let receipt = try Support.fixture("valid-sha256.receipt")
        let payload = try AppReceipt(berEncoded: receipt).payload
        let response = try Support.object(
            try await Self.post(Support.appleRequest(receipt, password: "s"), to: "/sandbox/verifyReceipt").body)
        let expected = payload.inAppPurchases.contains(where: LatestReceiptInfo.isAutoRenewable)
        #expect((response["latest_receipt_info"] != nil) == expected)
        #expect((response["latest_receipt"] != nil) == expected)
    }
}
