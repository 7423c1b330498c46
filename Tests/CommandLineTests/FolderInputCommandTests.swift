import Foundation
import TestSupport
import Testing

/// `verify-local` on folders: what the walk takes, links followed, loops ended, and a run with nothing to verify.
@Suite(.timeLimit(.minutes(1)))
struct FolderInputCommandTests {
    let command = CommandRunner("verify-local")
    let fixtures = SharedTestData.packageRoot.appendingPathComponent("fixtures")
    let testRoot = SharedTestData.packageRoot.appendingPathComponent("certs/test-root.pem").path

    /// The documented exit status of a run with nothing to verify (sysexits' EX_NOINPUT).
    static let nothingToVerify: Int32 = 66

    func fixtureBytes(_ name: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(name))
    }

    /// The `file` of each JSON report, in output order.
    func files(_ outcome: CommandRunner.Outcome) throws -> [String] {
        try outcome.jsonLines().map { $0["file"] as? String ?? "?" }
    }

    /// Makes `name` (a path below `folder`) a symbolic link to `destination`, as given (relative or absolute).
    func link(_ name: String, in folder: URL, to destination: String) throws {
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent(name).path, withDestinationPath: destination)
    }

    /// Lines the command wrote to standard error.
    func errorLines(_ outcome: CommandRunner.Outcome) -> [Substring] {
        outcome.standardError.split(separator: "\n")
    }

    @Test func anEmptyFolderIsNothingToVerify() async throws {
        let folder = try TemporaryFolder()
        let outcome = try await command.run(["--root", testRoot, folder.url.path])
        #expect(outcome.status == Self.nothingToVerify)
        #expect(outcome.standardOutput.isEmpty)
        #expect(!outcome.standardError.isEmpty, "a run that verifies nothing says so")
    }

    @Test func aFolderWithoutReceiptFilesIsNothingToVerify() async throws {
        let folder = try TemporaryFolder()
        try folder.write("README.md", Data("not a receipt".utf8))
        try folder.write("notes/data.json", Data("{}".utf8))
        // Hidden entries are skipped, receipt-like names included.
        try folder.write(".hidden.receipt", try fixtureBytes("valid-sha1.receipt"))
        try folder.write(".cache/valid.receipt", try fixtureBytes("valid-sha1.receipt"))
        let empty = try TemporaryFolder()
        let outcome = try await command.run(["--format", "json", "--root", testRoot, folder.url.path, empty.url.path])
        #expect(outcome.status == Self.nothingToVerify)
        #expect(outcome.standardOutput.isEmpty)
        #expect(!outcome.standardError.isEmpty)
        // With --decode-only too: nothing decoded is not success.
        #expect(try await command.run(["--decode-only", folder.url.path]).status == Self.nothingToVerify)
    }

    /// The folders are walked while the roots load; when both fail, the inputs' error is the one reported, then
    /// "nothing to verify", then the roots' error, as when one step followed the other.
    @Test func theInputsErrorsComeBeforeTheRootsErrors() async throws {
        let folder = try TemporaryFolder()
        let missingRoot = folder.url.appendingPathComponent("no-such-root.pem").path
        let missingInput = folder.url.appendingPathComponent("no-such-input").path
        let unreadable = try await command.run(["--root", missingRoot, missingInput])
        #expect(unreadable.status == 64)
        #expect(unreadable.standardError.contains("no such file or folder"), "\(unreadable.standardError)")
        #expect(!unreadable.standardError.contains("cannot load roots"), "\(unreadable.standardError)")

        let empty = try await command.run(["--root", missingRoot, folder.url.path])
        #expect(empty.status == Self.nothingToVerify, "\(empty.standardError)")
        #expect(!empty.standardError.contains("cannot load roots"), "\(empty.standardError)")

        try folder.write("a.receipt", try fixtureBytes("valid-sha1.receipt"))
        let badRoot = try await command.run(["--root", missingRoot, folder.url.path])
        #expect(badRoot.status == 64)
        #expect(badRoot.standardError.contains("cannot load roots"), "\(badRoot.standardError)")
        #expect(badRoot.standardOutput.isEmpty)
    }

    @Test func anEmptyFolderBesideAReceiptDoesNotStopTheRun() async throws {
        let empty = try TemporaryFolder()
        let outcome = try await command.run([
            "--root", testRoot, empty.url.path, fixtures.appendingPathComponent("valid-sha1.receipt").path,
        ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(!outcome.standardError.isEmpty, "the empty folder is still mentioned")
    }

    @Test func aLinkedFolderAndALinkedFileAreFollowed() async throws {
        let folder = try TemporaryFolder()
        try folder.write("real/a.receipt", try fixtureBytes("valid-sha1.receipt"))
        try folder.write("elsewhere/b.receipt", try fixtureBytes("valid-sha256.receipt"))
        let top = folder.url.appendingPathComponent("top")
        try FileManager.default.createDirectory(at: top, withIntermediateDirectories: true)
        try link("link", in: top, to: "../real")
        try link("file.receipt", in: top, to: "../elsewhere/b.receipt")
        let outcome = try await command.run(["--format", "json", "--root", testRoot, top.path])
        #expect(outcome.status == 0, "\(outcome.standardOutput)\(outcome.standardError)")
        #expect(try files(outcome) == [top.path + "/file.receipt", top.path + "/link/a.receipt"])
        #expect(try outcome.jsonLines().allSatisfy { $0["verdict"] as? String == "valid" })
    }

    @Test func aLinkedFolderNamedOnTheCommandLineIsWalked() async throws {
        let folder = try TemporaryFolder()
        try folder.write("real/a.receipt", try fixtureBytes("valid-sha1.receipt"))
        let link = folder.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real")
        let outcome = try await command.run(["--format", "json", "--root", testRoot, link.path])
        #expect(outcome.status == 0)
        #expect(try files(outcome) == [link.path + "/a.receipt"])
    }

    /// A link back to a folder on its own path is not followed, once per such link, with a line on standard
    /// error; everything else is verified and the run ends.
    @Test func aLinkLoopEndsWithANoteAndTheRestVerified() async throws {
        let folder = try TemporaryFolder()
        try folder.write("top/a.receipt", try fixtureBytes("valid-sha1.receipt"))
        try folder.write("top/sub/b.receipt", try fixtureBytes("valid-sha256.receipt"))
        let top = folder.url.appendingPathComponent("top")
        try link("self", in: top, to: ".")
        try link("sub/up", in: top, to: "..")
        let outcome = try await command.run(["--format", "json", "--root", testRoot, top.path])
        #expect(outcome.status == 0, "a loop skipped is not a failed receipt: \(outcome.standardError)")
        #expect(try files(outcome) == [top.path + "/a.receipt", top.path + "/sub/b.receipt"])
        #expect(errorLines(outcome).count == 2, "one line per link not followed: \(outcome.standardError)")
    }

    /// Two folders linking to each other: each is walked along both paths (as `find -L` does), and each
    /// path stops where it would come back round.
    @Test func aCycleBetweenTwoFoldersEnds() async throws {
        let folder = try TemporaryFolder()
        try folder.write("x/a.receipt", try fixtureBytes("valid-sha1.receipt"))
        try folder.write("y/b.receipt", try fixtureBytes("valid-sha256.receipt"))
        try link("x/to-y", in: folder.url, to: "../y")
        try link("y/to-x", in: folder.url, to: "../x")
        let root = folder.url.path
        let outcome = try await command.run(["--format", "json", "--root", testRoot, root])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(
            try files(outcome) == [
                root + "/x/a.receipt", root + "/x/to-y/b.receipt", root + "/y/b.receipt", root + "/y/to-x/a.receipt",
            ])
        #expect(errorLines(outcome).count == 2, "\(outcome.standardError)")
    }

    @Test func aBrokenLinkNamedLikeAReceiptIsAnUnreadableInput() async throws {
        let folder = try TemporaryFolder()
        try folder.write("a.receipt", try fixtureBytes("valid-sha1.receipt"))
        try link("gone.receipt", in: folder.url, to: "nowhere.receipt")
        try link("gone-folder", in: folder.url, to: "nowhere")
        let outcome = try await command.run(["--format", "json", "--root", testRoot, folder.url.path])
        #expect(outcome.status == 1)
        let lines = try outcome.jsonLines()
        #expect(
            lines.map { $0["file"] as? String } == [folder.url.path + "/a.receipt", folder.url.path + "/gone.receipt"])
        #expect((lines.last?["error"] as? [String: Any])?["code"] as? String == "receipt.unreadable_input")
    }

    @Test func onlyReceiptExtensionsAreTakenFromFoldersInAnyCase() async throws {
        let folder = try TemporaryFolder()
        let receipt = try fixtureBytes("valid-sha1.receipt")
        // Compared byte by byte in ASCII case: a shorter or longer suffix, or one with a non-ASCII letter (a Cyrillic
        // "е" in "l"), is not a receipt's.
        let names = [
            "a.RECEIPT", "b.der", "c.P7M", "d.bin", "e.json", "f.receipt.bak", "g", "h.receipts", "i.rec", "j.Base64",
            "k.pkcs", "l.rec\u{0435}ipt", "m.pKcS7",
        ]
        for name in names { try folder.write(name, receipt) }
        let outcome = try await command.run(["--format", "json", "--root", testRoot, folder.url.path])
        #expect(
            try files(outcome).map { URL(fileURLWithPath: $0).lastPathComponent } == [
                "a.RECEIPT", "b.der", "c.P7M", "d.bin", "j.Base64", "m.pKcS7",
            ])
        // Named explicitly, any file is read.
        let named = try await command.run(["--root", testRoot, folder.url.appendingPathComponent("g").path])
        #expect(named.status == 0)
    }

    @Test func anOversizedFileIsRefusedAsTooLarge() async throws {
        let folder = try TemporaryFolder()
        // Larger than any receipt input may be (ReceiptInput.maximumInputSize, about 11 MiB).
        let file = try folder.write("huge.receipt", Data(count: 12 * 1024 * 1024))
        let outcome = try await command.run(["--format", "json", file.path])
        #expect(outcome.status == 1)
        let line = try #require(try outcome.jsonLines().first)
        #expect((line["error"] as? [String: Any])?["code"] as? String == "receipt.too_large")
    }

    /// Folders deeper than the walk's limit (64 levels) are not entered: the receipts above are verified, the
    /// run says what it left out and does not exit 0.
    @Test func aTreeDeeperThanTheLimitIsCutAndSaysSo() async throws {
        let folder = try TemporaryFolder()
        try folder.write("top.receipt", try fixtureBytes("valid-sha1.receipt"))
        let deep = (0..<70).map { "d\($0)" }.joined(separator: "/")
        try folder.write(deep + "/bottom.receipt", try fixtureBytes("valid-sha1.receipt"))
        let outcome = try await command.run(["--format", "json", "--root", testRoot, folder.url.path])
        #expect(outcome.status == 1, "\(outcome.standardError)")
        #expect(try files(outcome) == [folder.url.path + "/top.receipt"])
        #expect(errorLines(outcome).contains { $0.contains("at most 64 levels of folders") })
    }

    /// Two links to the next folder, level after level, reach the last folder along 2^18 paths: the walk stops
    /// at its folder limit instead of walking them all.
    @Test func linksFanningOutAreBoundedByTheFolderLimit() async throws {
        let folder = try TemporaryFolder()
        let levels = 18
        for level in 0..<levels {
            try FileManager.default.createDirectory(
                at: folder.url.appendingPathComponent("l\(level)"), withIntermediateDirectories: true)
        }
        // One receipt, at the top: the cost measured is the walk's, not the verification of what it finds.
        try folder.write("l0/top.receipt", try fixtureBytes("valid-sha1.receipt"))
        for level in 0..<(levels - 1) {
            for name in ["a", "b"] {
                try link("l\(level)/\(name)", in: folder.url, to: "../l\(level + 1)")
            }
        }
        let outcome = try await command.run([
            "--decode-only", "--format", "json", folder.url.appendingPathComponent("l0").path,
        ])
        #expect(outcome.status == 1, "\(outcome.standardError)")
        #expect(errorLines(outcome).contains { $0.contains("at most 100000 folders") })
        #expect(try files(outcome) == [folder.url.appendingPathComponent("l0").path + "/top.receipt"])
    }
}
