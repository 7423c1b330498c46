import Foundation
import ReceiptForge
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

/// Every minted JWS in fixtures/jws gets the verdict and reason its `.expected.json` names, verified under the
/// test JWS root at its signed date (the verifier's default); the Xcode-signed one is valid only with the opt-in.
@Suite struct JWSFixtureTests {
    static let folder = SharedTestData.packageRoot.appendingPathComponent("fixtures/jws")

    static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".jws") }
            .map { String($0.dropLast(4)) }.sorted()
    }

    static func verifier(allowXcode: Bool) throws -> ReceiptVerifier {
        var anchors = TrustAnchors(allowsXcodeStoreKitTesting: allowXcode)
        try anchors.addRoots(
            fromPath: SharedTestData.packageRoot.appendingPathComponent("certs/test-jws-root.pem").path)
        return ReceiptVerifier(configuration: .init(trustAnchors: anchors))
    }

    @Test func theCatalogueIsThere() {
        #expect(Self.names.count >= 20, "fixtures/jws holds \(Self.names.count) JWS")
    }

    @Test(arguments: names)
    func eachFixtureGetsItsIntendedVerdict(name: String) throws {
        let expected = try SharedTestData.json(at: Self.folder.appendingPathComponent("\(name).expected.json"))
        let text = try String(contentsOf: Self.folder.appendingPathComponent("\(name).jws"), encoding: .utf8)
        let verdict = try Self.verifier(allowXcode: false).verifyJWS(text)
        #expect(verdict.outcome.rawValue == expected["verdict"] as? String, "\(name): \(verdict.reasons)")
        if let reason = expected["reason"] as? String {
            #expect(verdict.reason?.code.description == reason, "\(name): \(verdict.reasons)")
        }
        if verdict.isValid {
            #expect(verdict.payload?.kind.rawValue == expected["payload_type"] as? String, "\(name)")
        }
        if expected["valid_with_xcode_opt_in"] as? Bool == true {
            let opted = try Self.verifier(allowXcode: true).verifyJWS(text)
            #expect(opted.isValid, "\(name) with the Xcode opt-in: \(opted.reasons)")
            #expect(opted.environment == .xcode)
        }
    }

    @Test func aNotificationsNestedJWSAreVerifiedAndExposed() throws {
        let text = try String(
            contentsOf: Self.folder.appendingPathComponent("valid-notification-did-renew.jws"), encoding: .utf8)
        let verdict = try Self.verifier(allowXcode: false).verifyJWS(text)
        #expect(verdict.isValid, "\(verdict.reasons)")
        #expect(verdict.nested.count == 2)
        #expect(verdict.verifiedTransaction?.transactionID != nil)
        #expect(verdict.verifiedRenewalInfo?.autoRenewStatus == .known(.on))
        // The same notification trusted under the receipt root only: every layer is refused.
        var anchors = TrustAnchors()
        try anchors.addRoots(fromPath: SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path)
        let untrusted = ReceiptVerifier(configuration: .init(trustAnchors: anchors)).verifyJWS(text)
        #expect(untrusted.reason?.code == .chainUntrustedRoot, "\(untrusted.reasons)")
    }

    static let minter = JWSMinter(pki: TestPKI(directory: SharedTestData.packageRoot.appendingPathComponent("certs")))

    static func json(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }

    static func transaction(bundle: String) throws -> String {
        try minter.mint(
            payloadJSON: json([
                "transactionId": "9", "originalTransactionId": "9", "bundleId": bundle, "productId": "p",
                "purchaseDate": 1_749_979_700_000, "type": "Consumable", "signedDate": 1_749_979_800_000,
                "environment": "Sandbox",
            ]), variant: nil)
    }

    static func notification(nested: String) throws -> String {
        try minter.mint(
            payloadJSON: json([
                "notificationType": "CONSUMPTION_REQUEST", "notificationUUID": "u-1", "signedDate": 1_749_979_800_000,
                "data": ["bundleId": "org.example.app", "environment": "Sandbox", "signedTransactionInfo": nested],
            ]), variant: nil)
    }

    @Test func aNestedJWSMustBeAboutTheSameAppAndBeValidItself() throws {
        let verifier = try Self.verifier(allowXcode: false)
        #expect(
            verifier.verifyJWS(try Self.notification(nested: try Self.transaction(bundle: "org.example.app"))).isValid)
        let otherApp = verifier.verifyJWS(try Self.notification(nested: try Self.transaction(bundle: "org.other.app")))
        #expect(otherApp.reason?.code == .jwsNestedMismatch, "\(otherApp.reasons)")
        let forgedInner = try Self.minter.mint(
            payloadJSON: Self.json([
                "transactionId": "9", "bundleId": "org.example.app", "signedDate": 1_749_979_800_000,
                "environment": "Sandbox",
            ]), variant: .wrongRoot)
        let forged = verifier.verifyJWS(try Self.notification(nested: forgedInner))
        #expect(forged.outcome == .invalid)
        #expect(forged.reason?.code == .chainUntrustedRoot, "\(forged.reasons)")
        #expect(forged.reason?.message.hasPrefix("signedTransactionInfo:") == true)
    }

    @Test(arguments: [-1, 1])
    func aSignatureOfAnyOtherLengthDoesNotVerify(change: Int) throws {
        let text = try String(
            contentsOf: Self.folder.appendingPathComponent("valid-renewal-info.jws"), encoding: .utf8)
        var parts = text.split(separator: ".").map(String.init)
        var padded = parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while padded.count % 4 != 0 { padded += "=" }
        var signature = [UInt8](try #require(Data(base64Encoded: padded)))
        if change < 0 { signature.removeLast() } else { signature.append(0) }
        parts[2] = Data(signature).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let verdict = try Self.verifier(allowXcode: false).verifyJWS(parts.joined(separator: "."))
        #expect(verdict.reason?.code == .jwsSignatureMismatch, "\(verdict.reasons)")
    }
}

/// A notification's shape as Apple sends it: one object naming its app, nested JWS as strings, the app Apple id
/// checked wherever the payload is not known to be Sandbox or Xcode.
@Suite struct NotificationShapeTests {
    static func notification(_ members: [String: Any]) throws -> String {
        var payload: [String: Any] = [
            "notificationType": "TEST", "notificationUUID": "u-shape", "signedDate": 1_749_979_800_000,
        ]
        payload.merge(members) { $1 }
        return try JWSFixtureTests.minter.mint(payloadJSON: JWSFixtureTests.json(payload), variant: nil)
    }

    static var ours: [String: Any] { ["bundleId": "org.example.app", "environment": "Sandbox"] }

    @Test func twoObjectsNamingTheAppAreRefused() throws {
        let verifier = try JWSFixtureTests.verifier(allowXcode: false)
        #expect(verifier.verifyJWS(try Self.notification(["data": Self.ours]), kind: .notification).isValid)
        let two = verifier.verifyJWS(
            try Self.notification([
                "data": Self.ours, "appData": ["bundleId": "org.other.app", "environment": "Production"],
            ]), kind: .notification)
        #expect(two.outcome == .invalid)
        #expect(two.reason?.code == .jwsMalformed, "\(two.reasons)")
    }

    /// A genuine JWS of one kind put in another kind's member is refused for what it is, never read as that kind.
    @Test func aJWSInAnotherKindsMemberIsAKindMismatch() throws {
        let verifier = try JWSFixtureTests.verifier(allowXcode: false)
        let transaction = try JWSFixtureTests.transaction(bundle: "org.example.app")
        let renewal = try JWSFixtureTests.minter.mint(
            payloadJSON: JWSFixtureTests.json([
                "originalTransactionId": "9", "autoRenewProductId": "p", "productId": "p", "autoRenewStatus": 1,
                "signedDate": 1_749_979_800_000, "environment": "Sandbox",
            ]), variant: nil)
        var swapped = Self.ours
        swapped["signedTransactionInfo"] = renewal
        swapped["signedRenewalInfo"] = transaction
        let verdict = verifier.verifyJWS(try Self.notification(["data": swapped]), kind: .notification)
        #expect(verdict.outcome == .invalid)
        let codes = verdict.reasons.map(\.code)
        #expect(codes.filter { $0 == .jwsKindMismatch }.count == 2, "\(verdict.reasons)")
        #expect(verdict.verifiedTransaction == nil && verdict.verifiedRenewalInfo == nil)
        // Each nested JWS is read as its member says, and refused as not being one.
        #expect(verdict.nested.map(\.payload?.kind) == [.transaction, .renewalInfo])
        #expect(verdict.nested.map(\.reason?.code) == [.jwsKindMismatch, .jwsKindMismatch])
    }

    @Test func aNestedMemberThatIsNoStringIsRefused() throws {
        var data = Self.ours
        data["signedTransactionInfo"] = ["transactionId": "1"]
        let verdict = try JWSFixtureTests.verifier(allowXcode: false).verifyJWS(
            try Self.notification(["data": data]), kind: .notification)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .jwsMalformed, "\(verdict.reasons)")
    }

    /// Only a payload known to be Sandbox (or Xcode) skips the app Apple id check.
    @Test(
        arguments: [
            ("Sandbox", nil, true), ("Sandbox", 7, true), ("Production", 1, true), ("Production", 7, false),
            ("Production", nil, false), ("SomeFutureEnvironment", 7, false), (nil, nil, false),
        ] as [(String?, Int64?, Bool)])
    func theAppAppleIDIsSkippedOnlyWhereKnownSandbox(environment: String?, appAppleID: Int64?, accepted: Bool) throws {
        var data: [String: Any] = ["bundleId": "org.example.app"]
        if let environment { data["environment"] = environment }
        if let appAppleID { data["appAppleId"] = appAppleID }
        var policy = ReceiptPolicy(acceptedBundleIDs: ["org.example.app"])
        policy.acceptedAppAppleIDs = [1]
        let verdict = try JWSFixtureTests.verifier(allowXcode: false).verifyJWS(
            try Self.notification(["data": data]), kind: .notification, policy: policy)
        #expect(verdict.isValid == accepted, "\(verdict.reasons)")
        if !accepted { #expect(verdict.reason?.code == .policyAppAppleIDRejected, "\(verdict.reasons)") }
    }
}

/// The two x5c checks the fixtures cannot reach, with certificates made here by the `openssl` command from the test
/// root: a last certificate that carries the root's name but is not self-issued (a cross-signed copy), and one that
/// is self-issued under the root's name with another key (a lookalike), which OpenSSL alone would step around by
/// building the path to the trusted root.
@Suite(.enabled(if: OpenSSLTool.executable != nil, "openssl is not installed"))
struct X5COrderTests {
    static let certs = SharedTestData.packageRoot.appendingPathComponent("certs")

    /// The valid transaction's JWS with `x5c[2]` replaced by the certificate in `pem`.
    static func withRoot(_ pem: URL) throws -> String {
        let text = try JWSFixtureTests.transaction(bundle: "org.example.app")
        var parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var header =
            try JSONSerialization.jsonObject(with: JWSVerificationTests.decodedSegment(parts[0])) as? [String: Any]
            ?? [:]
        var x5c = try #require(header["x5c"] as? [String])
        let body = try String(contentsOf: pem, encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("-----") }.joined()
        x5c[2] = body
        header["x5c"] = x5c
        parts[0] = JWSVerificationTests.base64URL(try JSONSerialization.data(withJSONObject: header))
        return parts.joined(separator: ".")
    }

    static func openssl(_ arguments: [String], in folder: URL) throws {
        #expect(try OpenSSLTool.run(arguments, in: folder) == 0, "openssl \(arguments.joined(separator: " "))")
    }

    @Test func aLastCertificateThatIsNotSelfIssuedIsOutOfOrder() throws {
        let folder = try TemporaryFolder()
        try Self.openssl(
            [
                "x509", "-in", Self.certs.appendingPathComponent("test-jws-root.pem").path, "-CA",
                Self.certs.appendingPathComponent("other-jws-root.pem").path, "-CAkey",
                Self.certs.appendingPathComponent("test-only-keys/other-jws-root.key.pem").path, "-preserve_dates",
                "-set_serial", "99", "-out", "cross.pem",
            ], in: folder.url)
        let verdict = try JWSFixtureTests.verifier(allowXcode: false).verifyJWS(
            try Self.withRoot(folder.url.appendingPathComponent("cross.pem")), kind: .transaction)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .jwsX5COrder, "\(verdict.reasons)")
    }

    @Test func aLookalikeRootInX5CIsNotTheTrustedOne() throws {
        let folder = try TemporaryFolder()
        try Self.openssl(
            ["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "lookalike.key"], in: folder.url)
        try Self.openssl(
            [
                "x509", "-in", Self.certs.appendingPathComponent("test-jws-root.pem").path, "-signkey",
                "lookalike.key", "-preserve_dates", "-out", "lookalike.pem",
            ], in: folder.url)
        let verdict = try JWSFixtureTests.verifier(allowXcode: false).verifyJWS(
            try Self.withRoot(folder.url.appendingPathComponent("lookalike.pem")), kind: .transaction)
        #expect(verdict.outcome == .invalid)
        #expect(verdict.reason?.code == .chainUntrustedRoot, "\(verdict.reasons)")
    }
}
