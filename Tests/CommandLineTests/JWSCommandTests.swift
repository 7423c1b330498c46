import Foundation
import TestSupport
import Testing

/// `verify-local` recognizes a JWS among its inputs (file or standard input) and verifies it as one.
@Suite(.serialized, .enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
struct JWSCommandTests {
    let command = CommandRunner("verify-local")
    let jws = SharedTestData.receiptsDirectory.appendingPathComponent("jws")

    func path(_ name: String) -> String { jws.appendingPathComponent("\(name).jws").path }

    @Test func anAppleSignedJWSIsValidAsTextAndAsJSON() async throws {
        let text = try await command.run([path("jws-goiap-renewal-sandbox")])
        #expect(text.status == 0, "\(text.standardOutput)\(text.standardError)")
        #expect(text.standardOutput.contains("VALID  Sandbox"))
        #expect(text.standardOutput.contains("JWS renewal_info"))
        let json = try await command.run(["--format", "json", path("jws-goiap-renewal-sandbox")])
        let line = try #require(try json.jsonLines().first)
        #expect(line["verdict"] as? String == "valid")
        #expect(line["payload_type"] as? String == "renewal_info")
        #expect((line["payload"] as? [String: Any])?["originalTransactionId"] as? String == "2000000335310644")
        #expect((line["chain"] as? [String])?.count == 3)
    }

    @Test func anXcodeSignedJWSNeedsTheOptIn() async throws {
        let refused = try await command.run(["--format", "json", path("jws-apple-xcode-signed-transaction")])
        #expect(refused.status == 1)
        let line = try #require(try refused.jsonLines().first)
        #expect((line["reasons"] as? [[String: Any]])?.first?["code"] as? String == "chain.untrusted_root")
        let accepted = try await command.run(["--allow-xcode", path("jws-apple-xcode-signed-transaction")])
        #expect(accepted.status == 0, "\(accepted.standardOutput)")
        #expect(accepted.standardOutput.contains("VALID  Xcode"))
    }

    @Test func aJWSOnStandardInputIsVerified() async throws {
        let text = try String(contentsOfFile: path("jws-goiap-renewal-sandbox"), encoding: .utf8)
        var tampered = Array(text.utf8)
        // A payload symbol changed: still base64url, no longer what was signed.
        let firstDot = try #require(tampered.firstIndex(of: UInt8(ascii: ".")))
        tampered[firstDot + 10] = tampered[firstDot + 10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let outcome = try await command.run(["--format", "json", "-"], standardInput: Data(tampered))
        #expect(outcome.status == 1)
        let line = try #require(try outcome.jsonLines().first)
        let code = (line["reasons"] as? [[String: Any]])?.first?["code"] as? String
        #expect(code == "jws.signature_mismatch" || code == "jws.malformed", "\(line)")
    }
}
