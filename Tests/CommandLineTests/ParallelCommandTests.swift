import Foundation
import TestSupport
import Testing

/// `verify-local` verifies on every core (`--jobs`) and still writes its reports in input order.
@Suite(.timeLimit(.minutes(2)))
struct ParallelCommandTests {
    let command = CommandRunner("verify-local")
    let fixtures = SharedTestData.packageRoot.appendingPathComponent("fixtures")
    let testRoot = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path

    /// Fixtures of different costs (forgeries that stop early, base64, iOS 6), so that work started later often
    /// finishes first.
    static let mixedFixtures = [
        "valid-sha1.receipt", "tampered-payload.receipt", "valid-base64.b64", "lookalike-apple-chain.receipt",
        "ios6-valid.b64", "malformed-in-app-record.receipt", "valid-sha256.receipt",
    ]
    /// A far slower one (1,200 purchases), put in every 40th place: the reports after it wait for it.
    static let slowFixture = "valid-large-1200-purchases.receipt"

    /// A folder of `count` receipts: the mixed fixtures copied round-robin under names that sort differently
    /// from the order they were written in, some in subfolders.
    func folderOfManyReceipts(_ count: Int) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        let contents = try Self.mixedFixtures.map { try Data(contentsOf: fixtures.appendingPathComponent($0)) }
        let slow = try Data(contentsOf: fixtures.appendingPathComponent(Self.slowFixture))
        for index in 0..<count {
            let fixture = Self.mixedFixtures[index % Self.mixedFixtures.count]
            let ending = fixture.hasSuffix(".b64") ? "b64" : "receipt"
            // Reversed numbering and a subfolder for every seventh: creation order is not path order.
            let name = String(format: "%04d", count - index) + "-\(index % 3).\(ending)"
            let bytes = index % 40 == 1 ? slow : contents[index % contents.count]
            try folder.write(index % 7 == 0 ? "sub/\(name)" : name, bytes)
        }
        return folder
    }

    /// The `file` of each JSON report, in output order.
    func files(_ outcome: CommandRunner.Outcome) throws -> [String] {
        try outcome.jsonLines().map { $0["file"] as? String ?? "?" }
    }

    @Test func reportsFollowSortedPathOrderWhateverTheJobs() async throws {
        let folder = try folderOfManyReceipts(240)
        let expected = try FileManager.default.subpathsOfDirectory(atPath: folder.url.path)
            .filter { $0.hasSuffix(".receipt") || $0.hasSuffix(".b64") }
            .map { folder.url.path + "/" + $0 }.sorted()
        #expect(expected.count == 240)
        var outputs: [String] = []
        for jobs in [nil, "1", "3", "16"] {
            let arguments =
                ["--format", "json", "--root", testRoot] + (jobs.map { ["--jobs", $0] } ?? []) + [folder.url.path]
            let outcome = try await command.run(arguments)
            #expect(outcome.status == 1, "the folder holds forgeries")
            #expect(try files(outcome) == expected, "--jobs \(jobs ?? "default")")
            outputs.append(outcome.standardOutput)
        }
        #expect(Set(outputs).count == 1, "every --jobs value writes the same bytes")
    }

    @Test func textReportsAreInOrderToo() async throws {
        let folder = try folderOfManyReceipts(40)
        let serial = try await command.run(["--jobs", "1", "--root", testRoot, folder.url.path])
        let parallel = try await command.run(["--jobs", "8", "--root", testRoot, folder.url.path])
        #expect(serial.standardOutput == parallel.standardOutput)
        #expect(serial.status == parallel.status)
    }

    @Test func inputsNamedOnTheCommandLineKeepTheirOrder() async throws {
        let names = ["valid-sha256.receipt", "tampered-payload.receipt", "valid-large-1200-purchases.receipt", "-"]
        let paths = names.map { $0 == "-" ? "-" : fixtures.appendingPathComponent($0).path }
        let outcome = try await command.run(
            ["--format", "json", "--jobs", "4", "--root", testRoot] + paths.reversed(),
            standardInput: try Data(contentsOf: fixtures.appendingPathComponent("valid-sha1.receipt")))
        #expect(try files(outcome) == paths.reversed())
        #expect(try outcome.jsonLines().first?["verdict"] as? String == "valid", "standard input, read once")
    }

    @Test(arguments: ["0", "-1", "1025", "many"])
    func jobsOutsideItsRangeIsAUsageError(jobs: String) async throws {
        let outcome = try await command.run([
            "--jobs", jobs, fixtures.appendingPathComponent("valid-sha1.receipt").path,
        ])
        #expect(outcome.status == 64)
    }
}
