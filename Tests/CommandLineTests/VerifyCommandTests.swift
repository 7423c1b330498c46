import Foundation
import TestSupport
import Testing

/// `verify-local` verifies by default: verdicts, reasons, statuses and exit codes.
@Suite(.serialized)
struct VerifyCommandTests {
    let command = CommandRunner("verify-local")
    let fixtures = SharedTestData.packageRoot.appendingPathComponent("fixtures")
    let testRoot = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path
    let testJWSRoot = SharedTestData.packageRoot.appendingPathComponent("certs/test-jws-root.pem").path

    func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    @Test func everyFixtureGetsItsIntendedVerdictAndReason() async throws {
        let outcome = try await command.run([
            "--format", "json", "--root", testRoot, "--root", testJWSRoot, fixtures.path,
        ])
        let lines = try outcome.jsonLines()
        #expect(lines.count >= 20)
        for line in lines {
            let file = try #require(line["file"] as? String)
            let expectedURL = URL(fileURLWithPath: file).deletingPathExtension().appendingPathExtension("expected.json")
            let expected = try SharedTestData.json(at: expectedURL)
            #expect(line["verdict"] as? String == expected["verdict"] as? String, "\(file)")
            if let code = expected["reason"] as? String {
                let codes = (line["reasons"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
                #expect(codes.first == code, "\(file): reasons \(codes)")
            }
        }
        // Hostile fixtures are invalid, so the run as a whole exits 1.
        #expect(outcome.status == 1)
    }

    /// The clean ways out of `verify-local`'s own entry point, besides a run: help and a completion script, each on
    /// standard output with status 0, as ArgumentParser's own entry point answers them.
    @Test func helpAndACompletionScriptExitZero() async throws {
        let help = try await command.run(["--help"])
        #expect(help.status == 0, "\(help.standardError)")
        #expect(help.standardOutput.contains("OVERVIEW: Decode and verify App Store receipts locally"))
        #expect(help.standardOutput.contains("--decode-only"))
        let script = try await command.run(["--generate-completion-script", "bash"])
        #expect(script.status == 0, "\(script.standardError)")
        #expect(script.standardOutput.contains("verify-local"))
        #expect(script.standardOutput.contains("--jobs"))
    }

    @Test func exitsZeroWhenEveryInputIsValid() async throws {
        let outcome = try await command.run([
            "--root", testRoot, fixture("valid-sha1.receipt"), fixture("valid-sha256.receipt"),
        ])
        #expect(outcome.status == 0, "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.contains("VALID  status 0"))
    }

    @Test func exitsTwoWhenNothingIsInvalidButSomethingIsInconclusive() async throws {
        let outcome = try await command.run([
            "--root", testRoot, fixture("valid-sha1.receipt"), fixture("ios6-valid.b64"),
        ])
        #expect(outcome.status == 2, "\(outcome.standardOutput)")
    }

    @Test func minedFixturesAreUntrustedWithoutTheTestRoot() async throws {
        let outcome = try await command.run(["--format", "json", fixture("valid-sha256.receipt")])
        #expect(outcome.status == 1)
        let line = try #require(try outcome.jsonLines().first)
        #expect(line["verdict"] as? String == "invalid")
        #expect(line["status"] as? Int == 21003)
        #expect((line["reasons"] as? [[String: Any]])?.first?["code"] as? String == "chain.untrusted_root")
    }

    @Test func reportsTheValidationTimeItUsed() async throws {
        let outcome = try await command.run([
            "--format", "json", "--root", testRoot, "--at", "2030-01-01T00:00:00Z", fixture("valid-sha256.receipt"),
        ])
        let line = try #require(try outcome.jsonLines().first)
        #expect(line["validation_time"] as? String == "fixed")
        #expect(line["validated_at"] as? String == "2030-01-01T00:00:00Z")
        #expect(try await command.run(["--at", "yesterday", fixture("valid-sha256.receipt")]).status == 64)
    }

    @Test func appliesTheBundleIDPolicy() async throws {
        let outcome = try await command.run([
            "--format", "json", "--root", testRoot, "--bundle-id", "com.example.other", fixture("valid-sha256.receipt"),
        ])
        #expect(outcome.status == 1)
        let line = try #require(try outcome.jsonLines().first)
        #expect((line["reasons"] as? [[String: Any]])?.first?["code"] as? String == "policy.bundle_id_rejected")
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func realReceiptsAreValidAtCreationAndExpiredNow() async throws {
        let paths = SharedTestData.receiptNames.filter { !$0.contains("xcode") }
            .map { SharedTestData.receiptsDirectory.appendingPathComponent("\($0).receipt").path }
        let atCreation = try await command.run(["--format", "json"] + paths)
        #expect(atCreation.status == 0, "\(atCreation.standardOutput)")
        let lines = try atCreation.jsonLines()
        #expect(lines.count == paths.count)
        #expect(lines.allSatisfy { $0["verdict"] as? String == "valid" && $0["status"] as? Int == 0 })
        #expect(lines.allSatisfy { ($0["chain"] as? [String])?.count == 3 })

        let now = try await command.run(["--format", "json", "--at", "now"] + paths)
        #expect(now.status == 1)
        let codes = try now.jsonLines().map { ($0["reasons"] as? [[String: Any]])?.first?["code"] as? String }
        #expect(codes.allSatisfy { $0 == "chain.expired" }, "\(codes)")
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func xcodeReceiptsNeedTheOptIn() async throws {
        let path = SharedTestData.receiptsDirectory.appendingPathComponent("tpi-cyclemaps-xcode-2020.receipt").path
        #expect(try await command.run([path]).status == 1)
        let allowed = try await command.run(["--format", "json", "--allow-xcode", path])
        #expect(allowed.status == 0)
        #expect(try allowed.jsonLines().first?["environment"] as? String == "Xcode")
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func checksTheDeviceHash() async throws {
        let path = SharedTestData.receiptsDirectory.appendingPathComponent("aprv-purchasingexp-sandbox-2023-02.receipt")
            .path
        #expect(try await command.run(["--device-id", "e618109862dd433fbb94675d3815d263", path]).status == 0)
        #expect(try await command.run(["--device-id", "E6181098-62DD-433F-BB94-675D3815D263", path]).status == 0)
        let wrong = try await command.run([
            "--format", "json", "--device-id", "00000000-62DD-433F-BB94-675D3815D263", path,
        ])
        #expect(wrong.status == 1)
        let code = (try wrong.jsonLines().first?["reasons"] as? [[String: Any]])?.first?["code"] as? String
        #expect(code == "policy.device_hash_mismatch")
        #expect(try await command.run(["--device-id", "not-an-id", path]).status == 64)
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func checksAMacsDeviceHashAgainstItsMACAddress() async throws {
        // A Mac App Store receipt hashes the Mac's MAC address, 6c:40:08:b5:94:5e (../shared/receipts/README.md).
        let path = SharedTestData.receiptsDirectory.appendingPathComponent("aprv-mindnodemac-prod-2017.receipt").path
        for form in ["6c:40:08:b5:94:5e", "6c4008b5945e", "6C-40-08-B5-94-5E"] {
            let outcome = try await command.run(["--device-id", form, path])
            #expect(outcome.status == 0, "\(form): \(outcome.standardOutput)\(outcome.standardError)")
        }
        let wrong = try await command.run(["--format", "json", "--device-id", "6c:40:08:b5:94:5f", path])
        #expect(wrong.status == 1)
        let code = (try wrong.jsonLines().first?["reasons"] as? [[String: Any]])?.first?["code"] as? String
        #expect(code == "policy.device_hash_mismatch")
        for malformed in ["6c:40:08:b5:94", "6c4008b5945", "6c:40-08:b5:94:5e"] {
            #expect(try await command.run(["--device-id", malformed, path]).status == 64, "\(malformed)")
        }
    }
}
