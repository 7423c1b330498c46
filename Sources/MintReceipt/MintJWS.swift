import ArgumentParser
import Foundation
import ReceiptForge

/// `mint-receipt jws REQUEST…`: mints StoreKit 2 and App Store Server Notification V2 JWS from JSON requests
/// (`fixtures/jws/descriptions/`), signed by the test JWS chain, and their hostile variants.
struct MintJWS: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jws",
        abstract: "Mint JWS (transactions, renewal info, V2 notifications) signed by the test JWS chain.",
        discussion: """
            Each REQUEST is a JSON JWS request (see fixtures/jws/descriptions/). Output files are named after the \
            request file: NAME.jws (the compact JWS, one line, no newline), NAME.expected.json, and NAME.body.json \
            (the {"signedPayload": …} body Apple POSTs) when the request asks for it. ES256 signatures take a random \
            nonce: every run gives other signatures (header and payload stay the same, except a notification's \
            nested JWS).
            """)

    @Argument(help: "JWS request JSON files.")
    var requests: [String]

    @Option(name: .long, help: "The test PKI folder (certificates; keys in test-only-keys/).")
    var pki: String = "certs"

    @Option(name: .long, help: "Where to write the minted files.")
    var outputDir: String = "."

    @Option(name: .shortAndLong, help: "Write one JWS to this path instead ('-' for stdout); needs one request.")
    var output: String?

    mutating func validate() throws {
        if output != nil && requests.count != 1 {
            throw ValidationError("--output takes exactly one request")
        }
    }

    func run() throws {
        let pki = TestPKI(directory: URL(fileURLWithPath: pki))
        let outputFolder = URL(fileURLWithPath: outputDir)
        for path in requests {
            let requestURL = URL(fileURLWithPath: path)
            let request = try JWSMintRequest(json: Data(contentsOf: requestURL))
            let jws = try request.mint(pki: pki)
            if let output {
                if output == "-" {
                    FileHandle.standardOutput.write(Data(jws.utf8))
                } else {
                    try Data(jws.utf8).write(to: URL(fileURLWithPath: output))
                }
                continue
            }
            let name = requestURL.deletingPathExtension().lastPathComponent
            let fileName = "\(name).jws"
            try Data(jws.utf8).write(to: outputFolder.appendingPathComponent(fileName))
            try request.expectationJSON(fileName: fileName)
                .write(to: outputFolder.appendingPathComponent("\(name).expected.json"))
            if request.httpBody == true {
                try Data(JWSMinter.notificationBody(signedPayload: jws))
                    .write(to: outputFolder.appendingPathComponent("\(name).body.json"))
            }
            print("minted \(fileName) (\(jws.utf8.count) bytes)")
        }
    }
}
