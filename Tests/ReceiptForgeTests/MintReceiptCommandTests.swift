import Foundation
import TestSupport
import Testing

/// The `mint-receipt` executable: a thin shell, so one check that it writes what the library mints.
/// `swift test` builds it (CommandLineTests depends on it); the suite is skipped if it was not built.
@Suite(
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: SharedTestData.executable("mint-receipt").path),
        "mint-receipt is not built: CLI check skipped"))
struct MintReceiptCommandTests {
    func run(_ arguments: [String]) throws -> (status: Int32, stdout: Data) {
        let process = Process()
        process.executableURL = SharedTestData.executable("mint-receipt")
        process.arguments = arguments
        process.currentDirectoryURL = SharedTestData.packageRoot
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    @Test func mintsTheCommittedFixtureBytesToStandardOutput() throws {
        let (status, stdout) = try run(["fixtures/descriptions/valid-sha1.json", "--output", "-"])
        #expect(status == 0)
        #expect(stdout == (try Data(contentsOf: Fixtures.directory.appendingPathComponent("valid-sha1.receipt"))))
    }

    @Test func writesTheFixtureAndItsExpectationIntoAFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (status, _) = try run(["fixtures/descriptions/ios6-valid.json", "--output-dir", folder.path])
        #expect(status == 0)
        for file in ["ios6-valid.b64", "ios6-valid.expected.json"] {
            #expect(
                try Data(contentsOf: folder.appendingPathComponent(file))
                    == Data(contentsOf: Fixtures.directory.appendingPathComponent(file)))
        }
    }

    @Test func refusesAMissingRequest() throws {
        let (status, _) = try run(["fixtures/descriptions/no-such-request.json", "--output", "-"])
        #expect(status != 0)
    }
}
