import ArgumentParser
import ReceiptCrypto
import ReceiptIntake
import ReceiptModel
import ReceiptRemote
import ReceiptVerification
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import CMalloc
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `verify-local`: decodes (and verifies) App Store receipts from files, folders or standard input.
// The availability lets the command and its entry point (`main()`, below) be asynchronous on every platform.
@available(macOS 10.15, *)
@main
struct VerifyLocal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-local",
        abstract: "Decode and verify App Store receipts locally, without calling Apple.",
        discussion: """
            Inputs are files, folders (walked recursively; files ending in .receipt, .der, .p7, .p7m, \
            .p7s, .pkcs7, .bin, .b64, .base64 or .txt) or - for standard input. Each input may be raw \
            DER/BER or base64 text (white space, quotes and a data: prefix are tolerated), a StoreKit 2 \
            JWS (base64url segments joined by dots), or a JSON object holding one of them under a member \
            that names it: signedPayload (a notification body Apple POSTs: a notification), \
            signedTransactionInfo, signedRenewalInfo, signedAppTransactionInfo, signed_transaction, \
            receipt-data or receipt_data. A JWS's kind comes from that member; a JWS on its own is \
            recognized by the members its kind must have, or named with --jws-kind.

            Receipts are verified by default: the signature, the certificate chain to a trusted root \
            (Apple Root CA is pinned; --root/--roots add others) at the validation time, Apple's marker \
            extensions, and the policy flags. --decode-only skips verification.

            Remote fallback (off by default): with --remote (Apple's endpoints) or --remote-url / \
            --remote-sandbox-url (e.g. apple-standin's), receipts whose local verdict is inconclusive \
            (iOS 6 receipts, unsupported algorithms, no validation time) are sent to verifyReceipt; \
            valid and invalid verdicts never are. Each result says whether it was decided locally or \
            remotely. The shared secret comes from --password or $RECEIPT_SHARED_SECRET.

            Inputs are verified --jobs at a time (by default as many as there are cores); reports are \
            written in input order, folders' files in path order. Symbolic links are followed, to files \
            and folders; a link back to a folder on its own path (a loop) is not followed, and a line on \
            standard error says so.

            Exit status: 0 when every input is valid (with --decode-only: decoded), 1 when any is \
            invalid, undecodable or unreadable (a file, or a folder inside an input), 2 when none is \
            invalid but some are inconclusive, 64 for a usage error, 66 when there is nothing to \
            verify (an empty folder, or folders with no receipt files: a line on standard error says \
            so), 74 when the reports cannot be written.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    @Argument(help: "Receipt files, folders, or - for standard input.")
    var inputs: [String]

    @Option(help: "Output format: text (a summary per receipt) or json (one object per line).")
    var format: Format = Self.defaultFormat

    @Flag(help: "Only decode; do not verify signatures or chains.")
    var decodeOnly = false

    @Option(
        help: ArgumentHelp(
            "What a JWS given on its own is: transaction, renewal_info, app_transaction or notification (default: told from the members each kind must have; jws.unknown_kind when none or several fit). A JSON member's name wins over it.",
            valueName: "kind"),
        transform: { name in
            guard let kind = JWSPayload.Kind(rawValue: name) else {
                let kinds = JWSPayload.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError("--jws-kind takes one of \(kinds), not \(name)")
            }
            return kind
        })
    var jwsKind: JWSPayload.Kind?

    @Option(
        name: [.customShort("j"), .long],
        help: ArgumentHelp(
            "Verify this many receipts at once (1 to \(Self.maximumJobs); default: the number of active cores). Reports are written in input order whatever the number.",
            valueName: "n"))
    var jobs: Int?

    @OptionGroup(title: "Verification")
    var verification: VerificationOptions

    @OptionGroup(title: "Remote fallback")
    var remote: RemoteOptions

    /// The entry point: the arguments read by ``DirectArguments`` when it takes them, else by ArgumentParser, which
    /// also answers `--help` and explains usage errors. OpenSSL's one-time setup (``CryptoLibrary/prepare()``) runs
    /// on another thread meanwhile: it needs no argument, and it is a millisecond or two of a one-receipt run's
    /// start. Every way out waits for it first, so the process never exits while OpenSSL is being set up; so
    /// `--help`, a usage error and `--decode-only`, which need no OpenSSL, set it up too, beside the parse.
    static func main() async {
        let preparing = Task.detached { _ = CryptoLibrary.prepare() }
        do {
            if let command = DirectArguments.command(from: Array(CommandLine.arguments.dropFirst())) {
                await preparing.value
                try await command.run()
                return
            }
            var command = try await asyncParseAsRoot()
            await preparing.value
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            await preparing.value
            exit(withError: error)
        }
    }

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one file, folder or -") }
        if let jobs, !(1...Self.maximumJobs).contains(jobs) {
            throw ValidationError("--jobs takes a number from 1 to \(Self.maximumJobs), not \(jobs)")
        }
        if decodeOnly && remote.isEnabled {
            throw ValidationError("--decode-only and the remote flags exclude each other")
        }
    }

    func run() async throws {
        // Each job decodes and renders on its own thread's heap; with glibc's defaults those heaps were trimmed and
        // grown again batch after batch, and the page faults and madvise calls were a tenth of the run's CPU.
        #if canImport(Glibc)
            receipt_keep_freed_memory()
        #endif
        // The folders are walked on another thread while this one loads the roots: neither needs the other, and
        // until both are done no receipt can start.
        let inputs = inputs
        async let walked = InputSource.expand(inputs)
        // `--at now` is one instant for the whole run, read here, so every file is judged at the same time.
        let startedAt = ReceiptDate.systemNow()
        let made = Result { try decodeOnly ? nil : verification.makeVerifier(clock: { startedAt }) }
        // The inputs' errors come first, then "nothing to verify", then the verification flags' errors: the order
        // they had when one step followed the other.
        let expansion = try await walked
        var standardError = OutputBuffer(descriptor: STDERR_FILENO, flushesEveryReport: true)
        for note in expansion.notes { try? standardError.append("verify-local: \(note.message)\n") }
        let jobs = jobs ?? ProcessInfo.processInfo.activeProcessorCount
        // A worker that finds a file uncached also asks for the files the other workers' batches still hold.
        let inFlight = max(Self.window(jobs: jobs), (jobs + 1) * Self.localBatch)
        let sources = InputSource.readingAhead(expansion.sources, lookBehind: inFlight)
        guard !sources.isEmpty else {
            let extensions = InputSource.receiptExtensions.sorted().map { "." + $0 }.joined(separator: " ")
            try? standardError.append(
                "verify-local: nothing to verify: no receipt files in the inputs (folders are searched for \(extensions))\n"
            )
            throw ExitCode(Self.nothingToVerifyStatus)
        }
        let verifier = try made.get()
        let fallback = try verifier.flatMap { try remote.makeFallbackVerifier(verifier: $0) }
        let format = format
        let jwsKind = jwsKind
        let work: @Sendable (Int) async -> ReceiptReport.Rendered
        if let verifier {
            // The server's intake, without a ledger: one verification per receipt, Apple only as the table says.
            let intake = ReceiptIntake(
                decider: fallback ?? FallbackVerifier(verifier: verifier), rules: IntakeRules(),
                maximumInFlight: .max)
            let makeRequest = remote.requestMaker(now: ReceiptDate.systemNow)
            let attributed = fallback != nil
            work = { index in
                await ReceiptReport(
                    source: sources[index], intake: intake,
                    request: attributed ? makeRequest() : FallbackRequest(now: startedAt), now: startedAt,
                    attributed: attributed, jwsKind: jwsKind
                ).rendered(as: format)
            }
        } else {
            work = { index in ReceiptReport(decoding: sources[index], jwsKind: jwsKind).rendered(as: format) }
        }

        // Reports are written in input order, in batches (each as it comes with the remote fallback, whose
        // answers take long, or on a terminal).
        var output = OutputBuffer(flushesEveryReport: fallback != nil ? true : nil)
        var outputError: POSIXErrorNumber?
        var anyInvalid = expansion.notes.contains { $0.failsTheRun }
        var anyInconclusive = false
        // Local verifications take tens of microseconds: sixteen to a task, so handing them over costs little.
        let batch = fallback == nil ? Self.localBatch : 1
        await OrderedPipeline.run(
            count: sources.count, jobs: jobs, window: Self.window(jobs: jobs), batch: batch, work: work
        ) { report in
            switch report.outcome {
            case .invalid: anyInvalid = true
            case .inconclusive: anyInconclusive = true
            case .valid: break
            case nil: if report.failed { anyInvalid = true }
            }
            do throws(POSIXErrorNumber) { try output.append(report.bytes) } catch {
                outputError = error
                return false
            }
            return true
        }
        if outputError == nil {
            do { try output.flush() } catch { outputError = error }
        }
        if let outputError {
            try? standardError.append("verify-local: cannot write the reports: \(outputError)\n")
            throw ExitCode(Self.outputFailedStatus)
        }
        if anyInvalid { throw ExitCode(1) }
        if anyInconclusive { throw ExitCode(2) }
    }

    /// The exit status of a run that found nothing to verify: sysexits' EX_NOINPUT, beside the usage error's
    /// EX_USAGE (64), so a script can tell "no receipts" from "bad receipts" (1) and a mistyped flag.
    static let nothingToVerifyStatus: Int32 = 66
    /// The exit status when the reports cannot be written: sysexits' EX_IOERR.
    static let outputFailedStatus: Int32 = 74
    /// `--format`'s default.
    static let defaultFormat = Format.text
    /// The most `--jobs` takes.
    static let maximumJobs = 1024

    /// How many local verifications one task works through in a row (``OrderedPipeline``'s batch).
    static let localBatch = 16

    /// How many receipts may be started and not yet written: four per job, at least 16 (locally, in whole
    /// batches, and at least one batch more than the jobs). A slow receipt holds back at most that many finished
    /// reports, whatever the number of inputs.
    static func window(jobs: Int) -> Int { max(4 * jobs, 16) }
}
