import ArgumentParser
import Foundation

/// What both minting subcommands take: the requests, the test PKI, and where the minted files go.
struct MintOutputOptions: ParsableArguments {
    @Argument(help: "Request JSON files.")
    var requests: [String]

    @Option(name: .long, help: "The test PKI folder (certificates; keys in test-only-keys/).")
    var pki: String = "certs"

    @Option(name: .long, help: "Where to write the minted files.")
    var outputDir: String = "."

    @Option(
        name: .shortAndLong, help: "Write the one minted file to this path instead ('-' for stdout); needs one request."
    )
    var output: String?

    mutating func validate() throws {
        if output != nil && requests.count != 1 {
            throw ValidationError("--output takes exactly one request")
        }
    }

    /// Writes `contents` where `--output` says; `false` without `--output` (the caller names the file).
    func writeToOutput(_ contents: [UInt8]) throws -> Bool {
        guard let output else { return false }
        if output == "-" {
            FileHandle.standardOutput.write(Data(contents))
        } else {
            try Data(contents).write(to: URL(fileURLWithPath: output))
        }
        return true
    }
}
