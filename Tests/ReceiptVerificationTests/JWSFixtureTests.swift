import Foundation
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
        #expect(verdict.verifiedRenewalInfo?.autoRenewStatus == 1)
        // The same notification trusted under the receipt root only: every layer is refused.
        var anchors = TrustAnchors()
        try anchors.addRoots(fromPath: SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path)
        let untrusted = ReceiptVerifier(configuration: .init(trustAnchors: anchors)).verifyJWS(text)
        #expect(untrusted.reason?.code == .chainUntrustedRoot, "\(untrusted.reasons)")
    }
}
