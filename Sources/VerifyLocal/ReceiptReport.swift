import BER
import Logging
import ReceiptIntake
@_spi(Fuzzing) import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// The outcome for one input, rendered as text or as one JSON line (``VerdictJSON``).
struct ReceiptReport {
    let name: String
    /// The verdict; `nil` with `--decode-only`.
    let result: AttributedVerdict?
    /// `true` when the remote fallback was consulted: the report shows who decided and the local verdict.
    let attributed: Bool
    /// The receipt as decoded (whatever the outcome), or why the input did not decode.
    let receipt: ReceiptInput?
    let error: ReceiptError?
    /// The verdict when the input is a JWS (StoreKit 2, a notification's signedPayload), not a receipt.
    let jws: JWSVerdict?
    /// With `--decode-only`, a JWS as decoded (and the kind it was read as, when one fits), or why it did not decode.
    let decodedJWS: Result<CompactJWS, JWSError>?
    let decodedKind: JWSPayload.Kind?

    /// The outcome that counts.
    var outcome: Verdict.Outcome? { jws?.outcome ?? result?.verdict.outcome }

    /// Reads and recognizes the input (``InputDocument``): a receipt, or a JWS with the kind its JSON member names.
    static func document(_ source: InputSource) -> Result<InputDocument, ReceiptError> {
        Result { () throws(ReceiptError) in
            let bytes = try source.read()
            return try InputDocument(recognizing: bytes[...])
        }
    }

    /// Verifies through the intake, as the server does (without a ledger): a receipt locally, then with Apple when
    /// the fallback's table says so and remote is on; a JWS locally.
    /// - Parameters:
    ///   - attributed: the remote fallback is on: the report shows who decided and the local verdict.
    ///   - jwsKind: the kind of a JWS found on its own (`--jws-kind`); a JSON member's name wins over it.
    init(
        source: InputSource, intake: ReceiptIntake, request: FallbackRequest, now: ReceiptDate, attributed: Bool,
        jwsKind: JWSPayload.Kind?
    ) async {
        let verifier = intake.decider.jwsVerifier
        switch Self.document(source) {
        case .success(.jws(let text, let kind, _)):
            // Apple's verifyReceipt knows nothing of JWS: decided locally, whatever the fallback.
            self.init(name: source.name, jws: verifier.verifyJWS(text, kind: kind ?? jwsKind))
        case .success(.receipt(let bytes)):
            let call = ReceiptCall(
                receiptData: bytes, request: request, contract: .verdict, auditEndpoint: "verify-local", now: now)
            do {
                let answer = try await intake.verify(call, logger: Self.logger)
                self.init(name: source.name, result: answer.result, attributed: attributed)
            } catch {
                // Not a verdict about the receipt (the intake's slots are unbounded here): said as such.
                let verdict = Verdict(
                    judging: [Reason(.internalError, "verify-local: \(error)")], subject: ReceiptSubject(receipt: nil),
                    environment: nil, validationTime: verifier.configuration.validationTime, validationInstant: nil,
                    chain: [])
                self.init(name: source.name, result: .local(verdict), attributed: false)
            }
        case .failure(let error):
            let verdict = Verdict.malformed(error, validationTime: verifier.configuration.validationTime)
            self.init(name: source.name, result: .local(verdict), attributed: false)
        }
    }

    /// The intake logs nothing without a ledger; a logger it can be handed.
    static let logger = Logger(label: "verify-local", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Only decodes (`--decode-only`).
    init(decoding source: InputSource, jwsKind: JWSPayload.Kind?) {
        switch Self.document(source) {
        case .success(.jws(let text, let kind, _)):
            let decoded = Result { () throws(JWSError) in try CompactJWS(text) }
            let kind = kind ?? jwsKind ?? (try? decoded.get()).flatMap { JWSPayload.Kind.guess($0.payload) }
            self.init(name: source.name, receipt: nil, error: nil, decodedJWS: decoded, decodedKind: kind)
        case .success(.receipt(let bytes)):
            switch Result(catching: { () throws(ReceiptError) in try ReceiptInput(bytes: bytes) }) {
            case .success(let receipt): self.init(name: source.name, receipt: receipt, error: nil)
            case .failure(let error): self.init(name: source.name, receipt: nil, error: error)
            }
        case .failure(let error):
            self.init(name: source.name, receipt: nil, error: error)
        }
    }

    private init(name: String, result: AttributedVerdict, attributed: Bool) {
        self.init(
            name: name, result: result, attributed: attributed, receipt: result.verdict.receipt,
            error: result.verdict.decodingError)
    }

    private init(
        name: String, result: AttributedVerdict? = nil, attributed: Bool = false, receipt: ReceiptInput?,
        error: ReceiptError?, jws: JWSVerdict? = nil, decodedJWS: Result<CompactJWS, JWSError>? = nil,
        decodedKind: JWSPayload.Kind? = nil
    ) {
        self.decodedJWS = decodedJWS
        self.decodedKind = decodedKind
        self.name = name
        self.result = result
        self.attributed = attributed
        self.receipt = receipt
        self.error = error
        self.jws = jws
    }

    private init(name: String, jws: JWSVerdict) {
        self.init(name: name, receipt: nil, error: nil, jws: jws)
    }

    var failed: Bool {
        if case .failure? = decodedJWS { return true }
        return error != nil
    }

    /// A report as written out, and what it counts for in the exit status.
    struct Rendered: Sendable {
        /// The text report or the JSON line, with its line ending, as UTF-8.
        let bytes: [UInt8]
        let outcome: Verdict.Outcome?
        let failed: Bool
    }

    /// The report in `format`, made where the receipt was verified (so rendering, too, runs on every core).
    func rendered(as format: VerifyLocal.Format) -> Rendered {
        var bytes: [UInt8]
        switch format {
        case .text: bytes = Array(text.utf8)
        case .json:
            bytes = jsonLine
            bytes.append(UInt8(ascii: "\n"))
        }
        return Rendered(bytes: bytes, outcome: outcome, failed: failed)
    }

    /// One JSON line (``VerdictJSON/report(file:_:attributed:receipt:error:)``), without its line ending.
    var jsonLine: [UInt8] {
        if let jws { return JWSVerdictJSON.report(file: name, jws) }
        if let decodedJWS { return Self.decodedJSON(file: name, decodedJWS, kind: decodedKind) }
        return VerdictJSON.report(file: name, result, attributed: attributed, receipt: receipt, error: error)
    }

    // MARK: - Text

    /// A few aligned lines per receipt, then a blank line.
    var text: String {
        if let jws { return Self.text(name: name, jws) }
        if let decodedJWS { return Self.decodedText(name: name, decodedJWS, kind: decodedKind) }
        var lines = [name]
        if attributed, let result {
            var line = result.verdict.outcome.rawValue.uppercased()
            line += "  status \(VerifyReceiptStatus.status(of: result))  decided \(result.decidedBy)"
            if let response = result.appleResponse { line += "  (Apple status \(response.status))" }
            if let error = result.remoteError { line += "  (Apple: \(error.code))" }
            lines.append(Self.row("combined", line))
            for reason in result.verdict.reasons where reason.code.isRemote {
                lines.append(Self.row("remote", "\(reason.code)  \(reason.message)"))
            }
        }
        if let verdict = result?.localVerdict {
            var line =
                verdict.outcome.rawValue.uppercased() + "  status \(VerifyReceiptStatus.status(of: .local(verdict)))"
            if let environment = verdict.environment { line += "  \(environment)" }
            line +=
                "  validated at \(verdict.validationInstant.map(\.description) ?? "-") (\(verdict.validationTime.name))"
            lines.append(Self.row("verdict", line))
            for reason in verdict.reasons { lines.append(Self.row("reason", "\(reason.code)  \(reason.message)")) }
            if let leaf = verdict.chain.first { lines.append(Self.row("signed by", leaf)) }
        }
        switch (receipt, error) {
        case (.appReceipt(let receipt)?, _):
            let payload = receipt.payload
            let digest = receipt.signedData.signerInfos.first.map { "\($0.digestAlgorithm)" } ?? "no signer"
            lines.append(
                Self.row(
                    "receipt",
                    "\(payload.receiptType ?? "?")  \(payload.bundleID ?? "?")  version \(payload.applicationVersion ?? "?")"
                ))
            lines.append(Self.row("created", payload.creationDate.map(\.description) ?? "absent"))
            lines.append(
                Self.row(
                    "container",
                    "\(receipt.signedData.certificates.count) certificates, digest \(Self.digestName(digest)), payload \(receipt.signedData.eContent.count) bytes"
                ))
            lines.append(Self.row("purchases", "\(payload.inAppPurchases.count)"))
            // Text is for people: the first purchases, then a count; --format json has every one.
            for (index, purchase) in payload.inAppPurchases.prefix(Self.purchasesShownAsText).enumerated() {
                var line = "  \(index + 1). \(purchase.productID ?? "?") ×\(purchase.quantity ?? 1)"
                line += "  \(purchase.purchaseDate.map(\.description) ?? "?")"
                if let expires = purchase.expiresDate { line += "  expires \(expires)" }
                if let cancelled = purchase.cancellationDate { line += "  cancelled \(cancelled)" }
                if let type = purchase.productType { line += "  (\(type))" }
                lines.append(line)
            }
            if payload.inAppPurchases.count > Self.purchasesShownAsText {
                lines.append(
                    "  … and \(payload.inAppPurchases.count - Self.purchasesShownAsText) more (--format json lists all)"
                )
            }
            let unknown =
                payload.unknownAttributes.count + payload.inAppPurchases.reduce(0) { $0 + $1.unknownAttributes.count }
            lines.append(Self.row("undocumented", "\(unknown) attributes kept raw"))
        case (.iOS6(let receipt)?, _):
            let info = receipt.purchaseInfo
            lines.append(
                Self.row("receipt", "iOS 6 transaction receipt  \(info.bundleID ?? "?")  \(receipt.environment ?? "")"))
            lines.append(Self.row("purchase", "\(info.productID ?? "?")  transaction \(info.transactionID ?? "?")"))
        case (nil, let error?):
            lines.append(Self.row("error", "\(error.code)  \(error.reason)"))
        case (nil, nil):
            break
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// A JWS's report: the verdict, its reasons, the signer, what it signs (and a notification's nested JWS).
    static func text(name: String, _ verdict: JWSVerdict, indent: String = "") -> String {
        var lines = [indent + name]
        var line = verdict.outcome.rawValue.uppercased()
        if let environment = verdict.environment { line += "  \(environment)" }
        line += "  validated at \(verdict.validationInstant.map(\.description) ?? "-") (\(verdict.validationTime.name))"
        lines.append(indent + row("verdict", line))
        for reason in verdict.reasons { lines.append(indent + row("reason", "\(reason.code)  \(reason.message)")) }
        if let leaf = verdict.chain.first { lines.append(indent + row("signed by", leaf)) }
        if let payload = verdict.payload {
            var summary = "JWS \(payload.kind)"
            switch payload {
            case .transaction(let value):
                summary += "  \(value.productID ?? "?")  transaction \(value.transactionID ?? "?")"
                if let expires = value.expiresDate { summary += "  expires \(expires)" }
                if let revoked = value.revocationDate { summary += "  revoked \(revoked)" }
            case .renewalInfo(let value):
                summary += "  \(value.productID ?? "?")  original \(value.originalTransactionID ?? "?")"
                summary += "  auto-renew \(value.autoRenewStatus?.description ?? "?")"
            case .appTransaction(let value):
                summary += "  \(value.bundleID ?? "?")  version \(value.applicationVersion ?? "?")"
            case .notification(let value):
                summary += "  \(value.notificationType?.description ?? "?")\(value.subtype.map { "/\($0)" } ?? "")"
                summary += "  \(value.notificationUUID ?? "?")"
            }
            lines.append(indent + row("payload", summary))
            lines.append(indent + row("signed", payload.signedDate.map(\.description) ?? "absent"))
        }
        var report = lines.joined(separator: "\n") + "\n"
        for (index, inner) in verdict.nested.enumerated() {
            report += text(name: "nested \(index + 1)", inner, indent: indent + "    ")
        }
        return indent.isEmpty ? report + "\n" : report
    }

    /// `--decode-only` on a JWS: `{"file","kind":"jws","payload_type","algorithm","certificates","header",
    /// "payload"}`, or `{"file","kind":"jws","error":{"code","message"}}`.
    static func decodedJSON(file: String, _ decoded: Result<CompactJWS, JWSError>, kind: JWSPayload.Kind?) -> [UInt8] {
        var writer = JSONWriter(capacity: 4096)
        writer.beginObject()
        writer.field("file", file)
        writer.field("kind", "jws")
        switch decoded {
        case .success(let jws):
            let payload = kind.map { JWSPayload(jws.payload, kind: $0) }
            if let payload { writer.field("payload_type", payload.kind.rawValue) }
            if let algorithm = jws.algorithm { writer.field("algorithm", algorithm) }
            writer.field("certificates", Int64(jws.certificates?.count ?? 0))
            writer.key("header")
            JSONValue.object(jws.header).write(to: &writer)
            writer.key("payload")
            JSONValue.object(jws.payload).write(to: &writer)
            if let payload {
                writer.key("undocumented_members")
                writer.beginArray()
                for name in payload.undocumentedMembers { writer.string(name) }
                writer.endArray()
            }
        case .failure(let error):
            writer.key("error")
            writer.beginObject()
            writer.field("code", error.code.description)
            writer.field("message", error.reason)
            writer.endObject()
        }
        writer.endObject()
        return writer.bytes
    }

    /// `--decode-only` on a JWS, as text.
    static func decodedText(name: String, _ decoded: Result<CompactJWS, JWSError>, kind: JWSPayload.Kind?) -> String {
        var lines = [name]
        switch decoded {
        case .success(let jws):
            lines.append(
                row(
                    "jws",
                    "\(kind.map(\.rawValue) ?? "unknown kind")  alg \(jws.algorithm ?? "?")  \(jws.certificates?.count ?? 0) certificates (not verified)"
                ))
            lines.append(row("payload", String(decoding: JSONValue.object(jws.payload).jsonBytes, as: UTF8.self)))
            if let kind, case let undocumented = JWSPayload(jws.payload, kind: kind).undocumentedMembers,
                !undocumented.isEmpty
            {
                lines.append(row("undocumented", undocumented.joined(separator: ", ")))
            }
        case .failure(let error):
            lines.append(row("error", "\(error.code)  \(error.reason)"))
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// How many purchases a text report lists before summarising the rest.
    static let purchasesShownAsText = 20

    /// A text row's label column, in characters: labels are cut or padded to it.
    static let rowLabelWidth = 13

    static func row(_ label: String, _ value: String) -> String {
        "  " + label.prefix(rowLabelWidth) + String(repeating: " ", count: max(0, rowLabelWidth - label.count)) + value
    }

    static func digestName(_ oid: String) -> String {
        switch oid {
        case ASN1ObjectIdentifier.sha1.description: "SHA-1"
        case ASN1ObjectIdentifier.sha256.description: "SHA-256"
        default: oid
        }
    }
}
