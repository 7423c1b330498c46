import Foundation
import TestSupport
import Testing

/// `verify-local` tells a receipt from a JWS and a notification body exactly, and takes a JWS's kind from the member
/// that holds it or from `--jws-kind`.
@Suite(.serialized)
struct InputFormatCommandTests {
    let command = CommandRunner("verify-local")

    func fixture(_ name: String) -> String {
        SharedTestData.packageRoot.appendingPathComponent("fixtures/\(name)").path
    }

    /// A base64 iOS 6 receipt whose plist text starts with `{"` (its base64 starts with `eyJ`) is an iOS 6 receipt.
    @Test func aBase64IOS6ReceiptStartingLikeAJWSIsVerifiedAsOne() async throws {
        let outcome = try await command.run([
            "--format", "json", "--root", fixture("../certs/test-root.pem"), "--root",
            fixture("../certs/test-itunes-ca.pem"), fixture("ios6-compact-plist.b64"),
        ])
        #expect(outcome.status == 0, "\(outcome.standardOutput)\(outcome.standardError)")
        let line = try #require(try outcome.jsonLines().first)
        #expect(line["verdict"] as? String == "valid")
        #expect(line["kind"] as? String == "ios6_transaction_receipt", "\(line)")
    }

    /// A JWS with a segment missing is still a JWS, and malformed.
    @Test func aJWSMissingASegmentIsMalformed() async throws {
        let outcome = try await command.run(
            ["--format", "json", "-"], standardInput: Data("eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ\n".utf8))
        #expect(outcome.status == 1)
        let line = try #require(try outcome.jsonLines().first)
        #expect((line["reasons"] as? [[String: Any]])?.first?["code"] as? String == "jws.malformed", "\(line)")
    }

    /// A JWS on its own whose payload fits no kind is `jws.unknown_kind`; `--jws-kind` says what it is.
    @Test func aJWSOfNoKnownKindCanBeNamed() async throws {
        let jws = fixture("jws/corpus-transaction-all-members.jws")
        let text = try String(contentsOfFile: jws, encoding: .utf8)
        let parts = text.split(separator: ".").map(String.init)
        // The same header and signature over a payload of no kind: unknown, or with the kind stated, a transaction
        // whose signature does not verify.
        let payload = Data(#"{"appTransactionId":"1","signedDate":1749979800000}"#.utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        let forged = Data("\(parts[0]).\(payload).\(parts[2])".utf8)
        let root = fixture("../certs/test-jws-root.pem")
        let unknown = try await command.run(["--format", "json", "--root", root, "-"], standardInput: forged)
        #expect(unknown.status == 1)
        let line = try #require(try unknown.jsonLines().first)
        #expect((line["reasons"] as? [[String: Any]])?.first?["code"] as? String == "jws.unknown_kind", "\(line)")
        let named = try await command.run(
            ["--format", "json", "--root", root, "--jws-kind", "transaction", "-"], standardInput: forged)
        let namedLine = try #require(try named.jsonLines().first)
        #expect(namedLine["payload_type"] as? String == "transaction", "\(namedLine)")
        let valid = try await command.run(["--root", root, "--jws-kind", "transaction", jws])
        #expect(valid.status == 0, "\(valid.standardOutput)")
        let wrongKind = try await command.run(["--format", "json", "--root", root, "--jws-kind", "renewal_info", jws])
        #expect(wrongKind.status == 1)
        let wrongLine = try #require(try wrongKind.jsonLines().first)
        #expect((wrongLine["reasons"] as? [[String: Any]])?.first?["code"] as? String == "jws.kind_mismatch")
        let usage = try await command.run(["--jws-kind", "receipt", jws])
        #expect(usage.status == 64)
    }

    /// A notification body file (`{"signedPayload": …}`) is a notification; `--decode-only` lists the members Apple
    /// has not defined.
    @Test func aNotificationBodyFileIsANotification() async throws {
        let body = fixture("jws/corpus-future-members-did-renew.body.json")
        let root = fixture("../certs/test-jws-root.pem")
        let verified = try await command.run(["--format", "json", "--root", root, body])
        #expect(verified.status == 0, "\(verified.standardOutput)\(verified.standardError)")
        let line = try #require(try verified.jsonLines().first)
        #expect(line["payload_type"] as? String == "notification")
        let decoded = try await command.run(["--format", "json", "--decode-only", body])
        let decodedLine = try #require(try decoded.jsonLines().first)
        #expect(decodedLine["payload_type"] as? String == "notification")
        #expect(decodedLine["undocumented_members"] as? [String] == ["someFutureMember"])
        let text = try await command.run(["--decode-only", body])
        #expect(text.standardOutput.contains("undocumented someFutureMember"))
    }

    /// The real 2025 notification body verifies at its signed date, its nested renewal info (which carries
    /// appTransactionId) read as renewal info.
    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func theReal2025NotificationVerifies() async throws {
        let body = SharedTestData.receiptsDirectory.appendingPathComponent(
            "notifications/n2-sessionpro-did-renew-sandbox-2025.json"
        ).path
        let outcome = try await command.run(["--format", "json", body])
        #expect(outcome.status == 0, "\(outcome.standardOutput)\(outcome.standardError)")
        let line = try #require(try outcome.jsonLines().first)
        #expect(line["verdict"] as? String == "valid")
        #expect(line["validated_at"] as? String == "2025-10-01T07:08:38.835Z", "\(line)")
        let nested = try #require(line["nested"] as? [[String: Any]])
        #expect(nested.map { $0["payload_type"] as? String } == ["transaction", "renewal_info"])
    }
}
