import Foundation
import ReceiptModel
import ReceiptVerification
import TestSupport
import Testing

/// Shared inputs of the verification tests: real receipts (from `../shared`), the forge's fixtures and
/// test PKI (in the repository), and verifiers configured for each.
enum VerificationTestData {
    /// 2026-11-22T00:00:00Z, passed as "now": after every real Apple leaf expired.
    static let now = ReceiptDate(clampingMillisecondsSince1970: 1_795_305_600_000)

    static let appleSignedReceipts = SharedTestData.receiptNames.filter { !xcodeReceipts.contains($0) }
    static let xcodeReceipts = ["apple-xcode-backyardbirds-with-transaction", "tpi-cyclemaps-xcode-2020"]

    static let fixturesDirectory = SharedTestData.packageRoot.appendingPathComponent("fixtures")
    static let certsDirectory = SharedTestData.packageRoot.appendingPathComponent("certs")

    /// Every `fixtures/NAME.expected.json`, by NAME.
    static let fixtureNames: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixturesDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".expected.json") }.map { String($0.dropLast(".expected.json".count)) }
            .sorted()
    }()

    struct Fixture: Sendable {
        var name: String
        var bytes: [UInt8]
        var verdict: String
        var reason: String?
        var validationTime: String?
    }

    static func fixture(_ name: String) throws -> Fixture {
        let expected = try SharedTestData.json(at: fixturesDirectory.appendingPathComponent("\(name).expected.json"))
        let file = try #require(expected["fixture"] as? String)
        return Fixture(
            name: name, bytes: try SharedTestData.bytes(at: fixturesDirectory.appendingPathComponent(file)),
            verdict: try #require(expected["verdict"] as? String), reason: expected["reason"] as? String,
            validationTime: expected["validationTime"] as? String)
    }

    /// Trusts the project's test root (as the fixtures' `root` says) besides Apple's pins.
    static func testPKIAnchors(allowsXcode: Bool = false) throws -> TrustAnchors {
        var anchors = TrustAnchors(allowsXcodeStoreKitTesting: allowsXcode)
        try anchors.addRoots(fromPath: certsDirectory.appendingPathComponent("test-root.pem").path)
        return anchors
    }

    static func fixtureVerifier() throws -> ReceiptVerifier {
        ReceiptVerifier(configuration: .init(trustAnchors: try testPKIAnchors()))
    }
}
