import ArgumentParser
import Foundation
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// `verify-local`: decodes (and verifies) App Store receipts from files, folders or standard input.
// The availability makes ArgumentParser pick the asynchronous entry point on every platform.
@available(macOS 10.15, *)
@main
struct VerifyLocal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-local",
        abstract: "Decode and verify App Store receipts locally, without calling Apple.",
        discussion: """
            Inputs are files, folders (walked recursively; files ending in .receipt, .der, .p7, .p7m,
            .p7s, .pkcs7, .bin, .b64, .base64 or .txt) or - for standard input. Each input may be raw
            DER/BER or base64 text (white space, quotes and a data: prefix are tolerated).

            Receipts are verified by default: the signature, the certificate chain to a trusted root
            (Apple Root CA is pinned; --root/--roots add others) at the validation time, Apple's marker
            extensions, and the policy flags. --decode-only skips verification.

            Remote fallback (off by default): with --remote (Apple's endpoints) or --remote-url /
            --remote-sandbox-url (e.g. apple-standin's), receipts whose local verdict is inconclusive
            (iOS 6 receipts, unsupported algorithms, no validation time) are sent to verifyReceipt;
            valid and invalid verdicts never are. Each result says whether it was decided locally or
            remotely. The shared secret comes from --password or $RECEIPT_SHARED_SECRET.

            Symbolic links are followed, to files and folders; a link back to a folder on its own path
            (a loop) is not followed, and a line on standard error says so.

            Exit status: 0 when every input is valid (with --decode-only: decoded), 1 when any is
            invalid, undecodable or unreadable (a file, or a folder inside an input), 2 when none is
            invalid but some are inconclusive, 64 for a usage error, 66 when there is nothing to
            verify (an empty folder, or folders with no receipt files: a line on standard error says
            so).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @Argument(help: "Receipt files, folders, or - for standard input.")
    var inputs: [String]

    @Option(help: "Output format: text (a summary per receipt) or json (one object per line).")
    var format: Format = .text

    @Flag(help: "Only decode; do not verify signatures or chains.")
    var decodeOnly = false

    @OptionGroup(title: "Verification")
    var verification: VerificationOptions

    @OptionGroup(title: "Remote fallback")
    var remote: RemoteOptions

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one file, folder or -") }
        if decodeOnly && remote.isEnabled {
            throw ValidationError("--decode-only and the remote flags exclude each other")
        }
    }

    func run() async throws {
        let expansion = try InputSource.expand(inputs)
        for note in expansion.notes { Self.printError("verify-local: \(note.message)") }
        let sources = expansion.sources
        guard !sources.isEmpty else {
            let extensions = InputSource.receiptExtensions.sorted().map { "." + $0 }.joined(separator: " ")
            Self.printError(
                "verify-local: nothing to verify: no receipt files in the inputs (folders are searched for \(extensions))"
            )
            throw ExitCode(Self.nothingToVerifyStatus)
        }
        // `--at now` is one instant for the whole run, read here, so every file is judged at the same time.
        let startedAt = ReceiptDate.systemNow()
        let verifier = decodeOnly ? nil : try verification.makeVerifier(clock: { startedAt })
        let fallback = try verifier.flatMap { try remote.makeFallbackVerifier(verifier: $0) }
        var anyInvalid = expansion.notes.contains { $0.failsTheRun }
        var anyInconclusive = false
        for source in sources {
            let report: ReceiptReport
            if let fallback {
                report = await ReceiptReport(
                    source: source, fallback: fallback, request: remote.request(now: ReceiptDate.systemNow))
            } else {
                report = ReceiptReport(source: source, verifier: verifier)
            }
            switch report.outcome {
            case .invalid: anyInvalid = true
            case .inconclusive: anyInconclusive = true
            case .valid: break
            case nil: if report.failed { anyInvalid = true }
            }
            switch format {
            case .text: print(report.text, terminator: "")
            case .json: print(report.jsonLine)
            }
        }
        if anyInvalid { throw ExitCode(1) }
        if anyInconclusive { throw ExitCode(2) }
    }

    /// The exit status of a run that found nothing to verify: sysexits' EX_NOINPUT, beside the usage error's
    /// EX_USAGE (64), so a script can tell "no receipts" from "bad receipts" (1) and a mistyped flag.
    static let nothingToVerifyStatus: Int32 = 66

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
