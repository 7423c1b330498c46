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

    @OptionGroup var options: MintOutputOptions

    func run() throws {
        let pki = TestPKI(directory: URL(fileURLWithPath: options.pki))
        let outputFolder = URL(fileURLWithPath: options.outputDir)
        for path in options.requests {
            let requestURL = URL(fileURLWithPath: path)
            let request = try JWSMintRequest(json: Data(contentsOf: requestURL))
            let jws = try request.mint(pki: pki)
            if try options.writeToOutput(Array(jws.utf8)) { continue }
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
