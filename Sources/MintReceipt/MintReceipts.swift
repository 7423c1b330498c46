import ArgumentParser
import Foundation
import ReceiptForge

/// `mint-receipt [receipts] REQUEST…`: mints receipts from JSON mint requests with the project's test PKI.
///
/// Reads each request, mints it, writes `NAME.receipt` / `NAME.b64` / `NAME.txt` and, when the request states a
/// verdict, `NAME.expected.json`. The default subcommand, so `mint-receipt REQUEST…` keeps working.
struct MintReceipts: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipts",
        abstract: "Mint App Store (and iOS 6) receipts signed by the project's test PKI.",
        discussion: """
            Each REQUEST is a JSON mint request (see fixtures/descriptions/). Output files are named after the \
            request file: NAME.receipt (DER), NAME.b64 (base64) or NAME.txt (iOS 6 plist text), plus \
            NAME.expected.json when the request has an "expected" section. Minting is deterministic: the same \
            request and keys always give the same bytes.
            """)

    @OptionGroup var options: MintOutputOptions

    func run() throws {
        let pki = TestPKI(directory: URL(fileURLWithPath: options.pki))
        let outputFolder = URL(fileURLWithPath: options.outputDir)
        for path in options.requests {
            let requestURL = URL(fileURLWithPath: path)
            let request = try MintRequest(json: Data(contentsOf: requestURL))
            let contents = try request.fileContents(pki: pki)
            if try options.writeToOutput(contents) { continue }
            let name = requestURL.deletingPathExtension().lastPathComponent
            let fileName = "\(name).\(request.fileExtension)"
            try Data(contents).write(to: outputFolder.appendingPathComponent(fileName))
            if let expectation = try request.expectationJSON(fileName: fileName) {
                try expectation.write(to: outputFolder.appendingPathComponent("\(name).expected.json"))
            }
            print("minted \(fileName) (\(contents.count) bytes)")
        }
    }
}
