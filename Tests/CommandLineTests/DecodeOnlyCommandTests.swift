import Foundation
import TestSupport
import Testing

/// Runs the real `verify-local` binary and checks what it prints and its exit status.
@Suite(.serialized)
struct DecodeOnlyCommandTests {
    let command = CommandRunner("verify-local")

    @Test func exitsWithUsageStatusForBadArguments() async throws {
        #expect(try await command.run([]).status == 64)
        #expect(try await command.run(["--format", "yaml", "x"]).status == 64)
        #expect(try await command.run(["/nonexistent/receipt"]).status == 64)
    }

    @Test func reportsUndecodableInputAsATypedErrorAndExitsOne() async throws {
        let folder = try TemporaryFolder()
        let garbage = try folder.write("garbage.receipt", [UInt8]([0x30, 0x82, 0xFF, 0xFF, 0x01]))
        let empty = try folder.write("empty.receipt", [UInt8]())
        let outcome = try await command.run(["--decode-only", "--format", "json", garbage.path, empty.path])
        #expect(outcome.status == 1)
        let lines = try outcome.jsonLines()
        #expect(lines.count == 2)
        let first = try #require(lines.first?["error"] as? [String: Any])
        #expect(first["code"] as? String == "receipt.malformed_encoding")
        #expect(first["detail"] as? String == "ber.length_exceeds_input")
        #expect((lines.last?["error"] as? [String: Any])?["code"] as? String == "receipt.empty_input")
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func decodesRawBase64AndDataURLInputsAlike() async throws {
        let bytes = try SharedTestData.receiptBytes("aprv-purchasingexp-sandbox-2023-02")
        let base64 = Data(bytes).base64EncodedString(options: .lineLength64Characters)
        let folder = try TemporaryFolder()
        let raw = try folder.write("a.receipt", bytes)
        let text = try folder.write("b.b64", Data(("\n  " + base64 + "\n").utf8))
        let dataURL = try folder.write("c.txt", Data(("\"data:application/pkcs7-mime;base64," + base64 + "\"").utf8))
        let outcome = try await command.run(["--decode-only", "--format", "json", raw.path, text.path, dataURL.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let receipts = try outcome.jsonLines().map { try #require($0["receipt"] as? [String: Any]) }
        #expect(receipts.count == 3)
        #expect(receipts.allSatisfy { $0["bundle_id"] as? String == "com.hannesoid.PurchasingExperiments" })
        #expect(receipts.allSatisfy { ($0["in_app"] as? [Any])?.count == 2 })
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func readsStandardInput() async throws {
        let bytes = try SharedTestData.receiptBytes("tpi-cyclemaps-xcode-2020")
        let outcome = try await command.run(["--decode-only", "--format", "json", "-"], standardInput: Data(bytes))
        #expect(outcome.status == 0)
        let line = try #require(try outcome.jsonLines().first)
        #expect(line["file"] as? String == "-")
        #expect((line["receipt"] as? [String: Any])?["receipt_type"] as? String == "Xcode")
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func walksFoldersAndDecodesEveryRealReceipt() async throws {
        let outcome = try await command.run([
            "--decode-only", "--format", "json", SharedTestData.receiptsDirectory.path,
        ])
        #expect(outcome.status == 0, "\(outcome.standardOutput)")
        let lines = try outcome.jsonLines()
        // Every NAME.receipt plus the iOS 6 sample as base64 (.b64) and as plist text (.txt), and the JWS (.jws);
        // .json and README files are skipped.
        let jws = try FileManager.default.contentsOfDirectory(
            atPath: SharedTestData.receiptsDirectory.appendingPathComponent("jws").path
        ).filter { $0.hasSuffix(".jws") }
        #expect(lines.count == SharedTestData.receiptNames.count + 2 + jws.count)
        #expect(lines.filter { $0["kind"] as? String == "ios6_transaction_receipt" }.count == 2)
        #expect(lines.filter { $0["kind"] as? String == "jws" }.count == jws.count)
        #expect(lines.allSatisfy { $0["error"] == nil })
    }

    @Test(.enabled(if: SharedTestData.isAvailable, SharedTestData.skipMessage))
    func printsAReadableSummaryAsText() async throws {
        let path = SharedTestData.receiptsDirectory.appendingPathComponent("rc-sampleapp-sandbox-2020.receipt").path
        let outcome = try await command.run(["--decode-only", path])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.contains("com.revenuecat.sampleapp"))
        #expect(outcome.standardOutput.contains("purchases    9"))
        #expect(outcome.standardOutput.contains("digest SHA-1"))
    }
}
