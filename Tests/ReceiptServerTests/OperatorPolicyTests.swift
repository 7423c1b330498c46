import AppleStandIn
import Foundation
import Hummingbird
import HummingbirdTesting
import ReceiptForge
import ReceiptModel
import ReceiptRemote
@_spi(Fuzzing) import ReceiptServer
import ReceiptVerification
import TestSupport
import Testing

/// The operator's configuration wins over a `/v1/verify` client (issue 10, class 6): the shared secret is
/// checked as on `/verifyReceipt`, and a client option may only narrow what the server allows.
@Suite("the operator's configuration wins", .timeLimit(.minutes(2)))
struct OperatorPolicyTests {
    typealias Support = ServerTestSupport

    /// 2036-01-01T00:00:00Z: after the test leaf's notAfter (2034-12-31), so `valid-sha256` (created
    /// 2025-06-15) has an expired chain "now" and a valid one at its creation date.
    static let afterTheLeafExpired = ReceiptDate(clampingMillisecondsSince1970: 2_082_758_400_000)

    static func configuration(
        _ policy: ValidationTime, sharedSecret: String? = nil
    ) -> ReceiptServerConfiguration {
        var configuration = Support.configuration(sharedSecret: sharedSecret, validationTime: policy)
        configuration.clock = { afterTheLeafExpired }
        return configuration
    }

    static func post(
        _ service: ReceiptService, _ body: ByteBuffer, path: String = "/v1/verify",
        contentType: String = "application/json"
    ) async throws -> TestResponse {
        try await service.makeApplication().test(.router) { client in
            try await client.execute(uri: path, method: .post, headers: [.contentType: contentType], body: body)
        }
    }

    static func v1(_ receipt: [UInt8], _ members: String = "") -> ByteBuffer {
        ByteBuffer(string: "{\"receipt_data\":\"\(Base64.encode(receipt))\"\(members)}")
    }

    static func errorCode(_ response: TestResponse) throws -> String? {
        (try Support.object(response.body)["error"] as? [String: Any])?["code"] as? String
    }

    static func verdict(_ response: TestResponse) throws -> (verdict: String?, reason: String?) {
        let body = try Support.object(response.body)
        let reasons = body["reasons"] as? [[String: Any]]
        return (body["verdict"] as? String, reasons?.first?["code"] as? String)
    }

    @Test("--at now: the expired chain is invalid, with or without validation_time now")
    func atNowAnExpiredChainIsInvalid() async throws {
        let service = try Support.service(Self.configuration(.now))
        let receipt = try Support.fixture("valid-sha256.receipt")
        for members in ["", ",\"validation_time\":\"now\""] {
            let response = try await Self.post(service, Self.v1(receipt, members))
            #expect(response.status == .ok)
            let (verdict, reason) = try Self.verdict(response)
            #expect(verdict == "invalid")
            #expect(reason == "chain.expired")
        }
    }

    /// `creation` or a past instant would validate the chain when it was still valid: a client turning an
    /// expired chain valid against the operator's `--at now`.
    @Test(
        "--at now: validation_time creation or a fixed instant is refused (JSON and query)",
        arguments: ["creation", "2025-06-15T09:30:00Z", "2034-06-01T00:00:00Z", "2040-01-01T00:00:00Z"])
    func atNowTheClientCannotChooseAnotherInstant(time: String) async throws {
        let service = try Support.service(Self.configuration(.now))
        let receipt = try Support.fixture("valid-sha256.receipt")
        let json = try await Self.post(service, Self.v1(receipt, ",\"validation_time\":\"\(time)\""))
        #expect(json.status == .badRequest)
        #expect(try Self.errorCode(json) == "server.invalid_option")
        let raw = try await Self.post(
            service, ByteBuffer(bytes: receipt), path: "/v1/verify?validation_time=\(time)",
            contentType: "application/octet-stream")
        #expect(raw.status == .badRequest)
        #expect(try Self.errorCode(raw) == "server.invalid_option")
    }

    @Test("--at creation: the client may ask for now, which is stricter")
    func atCreationTheClientMayAskForNow() async throws {
        let service = try Support.service(Self.configuration(.receiptCreation))
        let receipt = try Support.fixture("valid-sha256.receipt")
        for (members, expected) in [
            ("", "valid"), (",\"validation_time\":\"creation\"", "valid"), (",\"validation_time\":\"now\"", "invalid"),
        ] {
            let response = try await Self.post(service, Self.v1(receipt, members))
            #expect(response.status == .ok)
            #expect(try Self.verdict(response).verdict == expected, "\(members)")
        }
    }

    @Test("--at creation: a fixed instant is refused", arguments: ["2025-06-15T09:30:00Z", "2099-01-01T00:00:00Z"])
    func atCreationAFixedInstantIsRefused(time: String) async throws {
        let service = try Support.service(Self.configuration(.receiptCreation))
        let receipt = try Support.fixture("valid-sha256.receipt")
        let response = try await Self.post(service, Self.v1(receipt, ",\"validation_time\":\"\(time)\""))
        #expect(response.status == .badRequest)
        #expect(try Self.errorCode(response) == "server.invalid_option")
    }

    /// As on `/verifyReceipt`: a wrong password is refused before anything is verified or sent to Apple.
    @Test("a password other than the shared secret is refused with 403 and never forwarded to Apple")
    func aWrongPasswordIsRefusedAndNeverForwarded() async throws {
        let standIn = AppleStandIn(configuration: .init(now: { Support.fixedNow }))
        let ios6 = String(decoding: try Support.fixture("ios6-valid.b64"), as: UTF8.self)
        func body(_ password: String?) -> ByteBuffer {
            ByteBuffer(
                string: "{\"receipt_data\":\"\(ios6)\"" + (password.map { ",\"password\":\"\($0)\"" } ?? "") + "}")
        }
        try await standIn.withRunning { addresses in
            let decider = try FallbackVerifier.apple(
                verifier: Support.verifier(), productionURL: addresses.productionURL,
                sandboxURL: addresses.sandboxURL, deadline: .seconds(60), logger: Support.quietLogger)
            let service = try Support.service(Support.configuration(sharedSecret: "right-secret"), decider: decider)
            let wrong = try await Self.post(service, body("wrong-secret"))
            #expect(wrong.status == .forbidden)
            #expect(try Self.errorCode(wrong) == "server.shared_secret_mismatch")
            let apple = try await Self.post(
                service, ByteBuffer(string: "{\"receipt-data\":\"\(ios6)\",\"password\":\"wrong-secret\"}"),
                path: "/sandbox/verifyReceipt")
            #expect(try Support.status(apple.body) == 21004)
            #expect(standIn.requests().isEmpty)

            for password in ["right-secret", nil] {
                let response = try await Self.post(service, body(password))
                #expect(response.status == .ok)
                #expect(try Support.object(response.body)["decided_by"] as? String == "remote")
            }
            #expect(standIn.requests().allSatisfy { $0.password == "right-secret" })
        }
    }

    @Test("allow_remote true cannot turn on a fallback the server does not have")
    func allowRemoteOnlyNarrows() async throws {
        let ios6 = String(decoding: try Support.fixture("ios6-valid.b64"), as: UTF8.self)
        let response = try await Self.post(
            try Support.service(), ByteBuffer(string: "{\"receipt_data\":\"\(ios6)\",\"allow_remote\":true}"))
        let body = try Support.object(response.body)
        #expect(body["verdict"] as? String == "inconclusive")
        #expect(body["decided_by"] as? String == "local")
    }

    /// The Mac whose MAC address `macReceipt()` is bound to, in two of the forms `device_id` takes.
    static let mac = "6c:40:08:b5:94:5e"

    /// The valid-sha256 fixture's recipe, minted bound by the forge to the Mac ``mac``.
    static func macReceipt() throws -> [UInt8] {
        let descriptions = Support.fixturesDirectory.appendingPathComponent("descriptions")
        var request = try MintRequest(json: Data(contentsOf: descriptions.appendingPathComponent("valid-sha256.json")))
        var receipt = try #require(request.receipt)
        try receipt.bind(toDevice: [0x6C, 0x40, 0x08, 0xB5, 0x94, 0x5E])
        request.receipt = receipt
        return try request.mint(pki: TestPKI(directory: SharedTestData.packageRoot.appendingPathComponent("certs")))
    }

    @Test("device_id narrows: a receipt is valid for its own device only (JSON and query)")
    func deviceIDNarrows() async throws {
        let service = try Support.service()
        let receipt = try Self.macReceipt()
        for (device, expected) in [
            ("", ("valid", nil)), (Self.mac, ("valid", nil)), ("6C4008B5945E", ("valid", nil)),
            ("6c:40:08:b5:94:5f", ("invalid", "policy.device_hash_mismatch")),
            ("E6181098-62DD-433F-BB94-675D3815D263", ("invalid", "policy.device_hash_mismatch")),
        ] as [(String, (String, String?))] {
            let member = device.isEmpty ? "" : ",\"device_id\":\"\(device)\""
            let json = try Self.verdict(try await Self.post(service, Self.v1(receipt, member)))
            #expect(json.verdict == expected.0 && json.reason == expected.1, "\(device)")
            let query = device.isEmpty ? "" : "?device_id=\(device)"
            let raw = try Self.verdict(
                try await Self.post(
                    service, ByteBuffer(bytes: receipt), path: "/v1/verify\(query)",
                    contentType: "application/octet-stream"))
            #expect(raw.verdict == expected.0 && raw.reason == expected.1, "\(device)")
        }
    }

    @Test("device_id never replaces the operator's policy: a rejected bundle id stays rejected")
    func deviceIDKeepsTheOperatorsPolicy() async throws {
        var anchors = TrustAnchors()
        try anchors.addRoots(fromPath: Support.testRootPath)
        let verifier = ReceiptVerifier(
            configuration: .init(trustAnchors: anchors, policy: ReceiptPolicy(acceptedBundleIDs: ["com.example.other"]))
        )
        let service = try Support.service(decider: FallbackVerifier(verifier: verifier))
        let response = try await Self.post(service, Self.v1(try Self.macReceipt(), ",\"device_id\":\"\(Self.mac)\""))
        #expect(try Self.verdict(response).reason == "policy.bundle_id_rejected")
    }

    @Test(
        "a device_id that is no identifier is refused (JSON and query)",
        arguments: ["6c:40:08:b5:94", "6c4008b5945", "6c:40-08:b5:94:5e", "not-a-device"])
    func malformedDeviceIDIsRefused(device: String) async throws {
        let service = try Support.service()
        let receipt = try Self.macReceipt()
        let json = try await Self.post(service, Self.v1(receipt, ",\"device_id\":\"\(device)\""))
        #expect(json.status == .badRequest)
        #expect(try Self.errorCode(json) == "server.invalid_option")
        let raw = try await Self.post(
            service, ByteBuffer(bytes: receipt), path: "/v1/verify?device_id=\(device)",
            contentType: "application/octet-stream")
        #expect(raw.status == .badRequest)
        #expect(try Self.errorCode(raw) == "server.invalid_option")
    }

    @Test func aDeviceIDMayOnlyNameTheOperatorsDevice() throws {
        let operatorDevice = try #require(DeviceIdentifier(Self.mac))
        let policy = ReceiptPolicy(deviceIdentifier: operatorDevice)
        #expect(
            try V1Options(deviceIdentifier: operatorDevice).policy(narrowing: policy)?.deviceIdentifier
                == operatorDevice)
        let other = try #require(DeviceIdentifier("6c:40:08:b5:94:5f"))
        #expect(throws: ServerError.self) { try V1Options(deviceIdentifier: other).policy(narrowing: policy) }
        #expect(try V1Options().policy(narrowing: policy) == nil, "no device_id: the operator's policy as it is")
    }

    @Test func aFixedOperatorTimeAdmitsOnlyItself() throws {
        let instant = try #require(ReceiptDate(rfc3339: "2025-06-15T09:30:00Z"))
        let fixed = ValidationTime.fixed(instant)
        #expect(try V1Options().validationTime(policy: fixed) == fixed)
        #expect(try V1Options(validationTime: fixed).validationTime(policy: fixed) == fixed)
        for asked: ValidationTime in [
            .now, .receiptCreation,
            .fixed(ReceiptDate(clampingMillisecondsSince1970: instant.millisecondsSince1970 + 1)),
        ] {
            #expect(throws: ServerError.self) { try V1Options(validationTime: asked).validationTime(policy: fixed) }
        }
    }
}
