import Foundation
import TestSupport
import Testing

/// `verify-local` with the remote fallback, against the built `apple-standin` on loopback.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RemoteCommandTests {
    let command = CommandRunner("verify-local")
    let fixtures = SharedTestData.packageRoot.appendingPathComponent("fixtures")
    let testRoot = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path

    func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    @Test func anIOS6ReceiptIsDecidedRemotely() async throws {
        let standIn = try await StandInProcess(["--root", testRoot])
        let outcome = try await command.run(
            ["--format", "json", "--root", testRoot] + standIn.remoteArguments + [fixture("ios6-valid.b64")])
        #expect(outcome.status == 0, "\(outcome.standardOutput) \(outcome.standardError)")
        let line = try #require(try outcome.jsonLines().first)
        #expect(line["verdict"] as? String == "valid")
        #expect(line["decided_by"] as? String == "remote")
        #expect(line["remote_status"] as? Int == 0)
        #expect(line["local_verdict"] as? String == "inconclusive")
    }

    @Test func validAndInvalidReceiptsStayLocal() async throws {
        let standIn = try await StandInProcess(["--root", testRoot])
        let outcome = try await command.run(
            ["--format", "json", "--root", testRoot] + standIn.remoteArguments
                + [fixture("valid-sha256.receipt"), fixture("tampered-payload.receipt")])
        #expect(outcome.status == 1)
        let lines = try outcome.jsonLines()
        #expect(lines.map { $0["verdict"] as? String } == ["valid", "invalid"])
        #expect(lines.allSatisfy { $0["decided_by"] as? String == "local" && $0["remote_status"] == nil })
    }

    /// The fallback path runs concurrently too (`--jobs`), and its reports are still written in input order.
    @Test func remoteAndLocalDecisionsKeepInputOrder() async throws {
        let standIn = try await StandInProcess(["--root", testRoot])
        let names = [
            "ios6-valid.b64", "valid-sha256.receipt", "ios6-valid.b64", "tampered-payload.receipt", "ios6-valid.b64",
            "valid-sha1.receipt",
        ]
        let outcome = try await command.run(
            ["--format", "json", "--jobs", "4", "--root", testRoot] + standIn.remoteArguments + names.map(fixture))
        let lines = try outcome.jsonLines()
        #expect(lines.map { $0["file"] as? String } == names.map(fixture))
        #expect(
            lines.map { $0["decided_by"] as? String } == ["remote", "local", "remote", "local", "remote", "local"])
        #expect(lines.map { $0["verdict"] as? String } == ["valid", "valid", "valid", "invalid", "valid", "valid"])
        #expect(outcome.status == 1)
    }

    @Test func theSharedSecretComesFromTheEnvironmentAndIsNeverPrinted() async throws {
        let secret = "env-secret-7f3a9c"
        let standIn = try await StandInProcess(["--root", testRoot, "--shared-secret", secret])
        let arguments = ["--root", testRoot] + standIn.remoteArguments + [fixture("ios6-valid.b64")]
        let fromEnvironment = try await command.run(
            ["--format", "json"] + arguments, environment: ["RECEIPT_SHARED_SECRET": secret])
        let line = try #require(try fromEnvironment.jsonLines().first)
        #expect(line["remote_status"] as? Int == 0)
        #expect(line["decided_by"] as? String == "remote")

        // A wrong --password overrides the environment: Apple (the stand-in) answers 21004.
        let wrong = "flag-secret-0c1d2e"
        let fromFlag = try await command.run(
            ["--format", "json", "--password", wrong] + arguments, environment: ["RECEIPT_SHARED_SECRET": secret])
        let flagged = try #require(try fromFlag.jsonLines().first)
        #expect(flagged["remote_status"] as? Int == 21004)
        #expect(flagged["verdict"] as? String == "inconclusive")
        #expect(fromFlag.status == 2)

        let text = try await command.run(["--password", wrong] + arguments)
        for outcome in [fromEnvironment, fromFlag, text] {
            for value in [secret, wrong] {
                #expect(!outcome.standardOutput.contains(value))
                #expect(!outcome.standardError.contains(value))
            }
        }
    }

    @Test func anUnreachableAppleLeavesItInconclusive() async throws {
        let outcome = try await command.run([
            "--format", "json", "--root", testRoot, "--remote-url", "http://127.0.0.1:9/verifyReceipt",
            "--remote-sandbox-url", "http://127.0.0.1:9/verifyReceipt", "--remote-timeout", "0.3", "--remote-deadline",
            "1",
            fixture("ios6-valid.b64"),
        ])
        #expect(outcome.status == 2)
        let line = try #require(try outcome.jsonLines().first)
        #expect(line["verdict"] as? String == "inconclusive")
        #expect(line["decided_by"] as? String == "local")
        #expect(line["status"] as? Int == 21005)
        #expect(
            ["remote.unavailable", "remote.timeout", "remote.deadline_exceeded"].contains(
                line["remote_error"] as? String))
        #expect((line["reasons"] as? [[String: Any]])?.first?["code"] as? String == line["remote_error"] as? String)
    }

    @Test func retriesAScriptedOutageWithinTheDeadline() async throws {
        let standIn = try await StandInProcess(["--root", testRoot, "--production-script", "status:21005,http:500"])
        let outcome = try await command.run(
            ["--format", "json", "--root", testRoot] + standIn.remoteArguments + [fixture("ios6-valid.b64")])
        let line = try #require(try outcome.jsonLines().first)
        #expect(line["decided_by"] as? String == "remote")
        #expect(line["remote_status"] as? Int == 0)
    }

    @Test func withoutRemoteFlagsNothingChanges() async throws {
        let outcome = try await command.run(["--format", "json", "--root", testRoot, fixture("ios6-valid.b64")])
        #expect(outcome.status == 2)
        let line = try #require(try outcome.jsonLines().first)
        #expect(line["decided_by"] == nil)
        #expect(line["verdict"] as? String == "inconclusive")
    }

    @Test func rejectsConflictingOrBadRemoteFlags() async throws {
        #expect(try await command.run(["--decode-only", "--remote", fixture("valid-sha256.receipt")]).status == 64)
        #expect(
            try await command.run(["--remote-url", "ftp://x/verifyReceipt", fixture("valid-sha256.receipt")]).status
                == 64)
        #expect(
            try await command.run(["--remote", "--remote-timeout", "0", fixture("valid-sha256.receipt")]).status == 64)
        // Finite but far too large: a usage error, not a trap converting it to an integer.
        for value in ["1e300", "inf", "nan", "86401"] {
            let outcome = try await command.run([
                "--remote", "--remote-deadline", value, fixture("valid-sha256.receipt"),
            ])
            #expect(outcome.status == 64, "--remote-deadline \(value)")
        }
    }
}
