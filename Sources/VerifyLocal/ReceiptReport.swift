import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// The outcome for one input, rendered as text or as one JSON line.
struct ReceiptReport {
    let name: String
    let result: Result<ReceiptInput, ReceiptError>
    /// The verifier's verdict; `nil` with `--decode-only`.
    let verdict: Verdict?
    /// The combined local + remote result, when remote is on.
    let fallback: FallbackResult?

    /// The outcome that counts: the combined one when remote is on, else the local verdict's.
    var outcome: Verdict.Outcome? { fallback?.outcome ?? verdict?.outcome }

    /// Verifies locally, then asks Apple when the fallback table says so.
    init(source: InputSource, fallback: FallbackVerifier, request: FallbackRequest) async {
        name = source.name
        let bytes = Result { () throws(ReceiptError) in try source.read() }
        result = bytes.flatMap { bytes in Result { () throws(ReceiptError) in try ReceiptInput(bytes: bytes) } }
        switch bytes {
        case .success(let bytes):
            let combined = await fallback.verify(bytes, request: request)
            self.fallback = combined
            verdict = combined.localVerdict
        case .failure(let error):
            self.fallback = nil
            verdict = Verdict.malformed(error, validationTime: fallback.verifier.configuration.validationTime)
        }
    }

    init(source: InputSource, verifier: ReceiptVerifier?) {
        name = source.name
        fallback = nil
        guard let verifier else {
            result = Result { () throws(ReceiptError) in try ReceiptInput(bytes: source.read()) }
            verdict = nil
            return
        }
        switch Result(catching: { () throws(ReceiptError) in try source.read() }) {
        case .success(let bytes):
            (result, verdict) = verifier.decodeAndVerify(bytes[...])
        case .failure(let error):
            result = .failure(error)
            verdict = Verdict.malformed(error, validationTime: verifier.configuration.validationTime)
        }
    }

    var failed: Bool {
        if case .failure = result { return true }
        return false
    }

    // MARK: - JSON

    /// `{"file", "verdict", "reasons", "status", "environment", "validation_time", "validated_at",
    /// "chain", "kind", "receipt"}`; `error` instead of `kind` and `receipt` when decoding failed.
    var jsonLine: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("file", name)
        if let fallback {
            Self.write(fallback, to: &writer)
        } else if let verdict {
            Self.write(verdict, to: &writer)
        }
        switch result {
        case .success(.appReceipt(let receipt)):
            writer.field("kind", "app_receipt")
            writer.key("receipt")
            AppleReceiptJSON.write(receipt.payload, to: &writer)
        case .success(.iOS6(let receipt)):
            writer.field("kind", "ios6_transaction_receipt")
            writer.key("receipt")
            Self.writeIOS6(receipt, to: &writer)
        case .failure(let error):
            writer.key("error")
            Self.write(error, to: &writer)
        }
        writer.endObject()
        return writer.string
    }

    static func write(_ verdict: Verdict, to writer: inout JSONWriter) {
        writer.field("verdict", verdict.outcome.rawValue)
        writer.key("reasons")
        writer.beginArray()
        for reason in verdict.reasons {
            writer.beginObject()
            writer.field("code", reason.code.description)
            writer.field("message", reason.message)
            writer.endObject()
        }
        writer.endArray()
        writer.field("status", Int64(verdict.status))
        if let environment = verdict.environment { writer.field("environment", environment.rawValue) }
        writer.field("validation_time", verdict.validationTime.name)
        if let instant = verdict.validationInstant { writer.field("validated_at", instant.description) }
        writer.key("chain")
        writer.beginArray()
        for subject in verdict.chain { writer.string(subject) }
        writer.endArray()
    }

    /// The combined result: the verdict's keys with the combined outcome, reasons and status, then
    /// `decided_by`, `remote_status` (when Apple answered), `remote_error` (when it did not) and `local_verdict`.
    static func write(_ result: FallbackResult, to writer: inout JSONWriter) {
        let verdict = result.localVerdict
        writer.field("verdict", result.outcome.rawValue)
        writer.key("reasons")
        writer.beginArray()
        for reason in result.reasons {
            writer.beginObject()
            writer.field("code", reason.code.description)
            writer.field("message", reason.message)
            writer.endObject()
        }
        writer.endArray()
        writer.field("status", Int64(result.status))
        if let environment = result.environment { writer.field("environment", environment) }
        writer.field("validation_time", verdict.validationTime.name)
        if let instant = verdict.validationInstant { writer.field("validated_at", instant.description) }
        writer.key("chain")
        writer.beginArray()
        for subject in verdict.chain { writer.string(subject) }
        writer.endArray()
        writer.field("decided_by", result.decidedBy.rawValue)
        if let response = result.remoteResponse { writer.field("remote_status", Int64(response.status)) }
        if let error = result.remoteError { writer.field("remote_error", error.code.description) }
        writer.field("local_verdict", verdict.outcome.rawValue)
    }

    static func write(_ error: ReceiptError, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("code", error.code.description)
        writer.field("message", error.reason)
        if let underlying = error.underlying { writer.field("detail", underlying.code.description) }
        writer.endObject()
    }

    /// The purchase-info dictionary as iOS 6 verifyReceipt responses show it: keys with `_` for `-`.
    static func writeIOS6(_ receipt: IOS6TransactionReceipt, to writer: inout JSONWriter) {
        writer.beginObject()
        for (key, value) in receipt.purchaseInfo.entries.sorted(by: { $0.key < $1.key }) {
            writer.field(key.replacingOccurrences(of: "-", with: "_"), value)
        }
        writer.endObject()
    }

    // MARK: - Text

    /// A few aligned lines per receipt, then a blank line.
    var text: String {
        var lines = [name]
        if let fallback {
            var line = fallback.outcome.rawValue.uppercased() + "  status \(fallback.status)  decided \(fallback.decidedBy)"
            if let response = fallback.remoteResponse { line += "  (Apple status \(response.status))" }
            if let error = fallback.remoteError { line += "  (Apple: \(error.code))" }
            lines.append(Self.row("combined", line))
            for reason in fallback.reasons where reason.code.localCode == nil {
                lines.append(Self.row("remote", "\(reason.code)  \(reason.message)"))
            }
        }
        if let verdict {
            var line = verdict.outcome.rawValue.uppercased() + "  status \(verdict.status)"
            if let environment = verdict.environment { line += "  \(environment)" }
            line += "  validated at \(verdict.validationInstant.map(\.description) ?? "-") (\(verdict.validationTime.name))"
            lines.append(Self.row("verdict", line))
            for reason in verdict.reasons { lines.append(Self.row("reason", "\(reason.code)  \(reason.message)")) }
            if let leaf = verdict.chain.first { lines.append(Self.row("signed by", leaf)) }
        }
        switch result {
        case .success(.appReceipt(let receipt)):
            let payload = receipt.payload
            let digest = receipt.signedData.signerInfos.first.map { "\($0.digestAlgorithm)" } ?? "no signer"
            lines.append(Self.row("receipt", "\(payload.receiptType ?? "?")  \(payload.bundleID ?? "?")  version \(payload.applicationVersion ?? "?")"))
            lines.append(Self.row("created", payload.creationDate.map(\.description) ?? "absent"))
            lines.append(
                Self.row(
                    "container",
                    "\(receipt.signedData.certificates.count) certificates, digest \(Self.digestName(digest)), payload \(receipt.signedData.eContent.count) bytes"))
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
                lines.append("  … and \(payload.inAppPurchases.count - Self.purchasesShownAsText) more (--format json lists all)")
            }
            let unknown = payload.unknownAttributes.count + payload.inAppPurchases.reduce(0) { $0 + $1.unknownAttributes.count }
            lines.append(Self.row("undocumented", "\(unknown) attributes kept raw"))
        case .success(.iOS6(let receipt)):
            let info = receipt.purchaseInfo
            lines.append(Self.row("receipt", "iOS 6 transaction receipt  \(info.bundleID ?? "?")  \(receipt.environment ?? "")"))
            lines.append(Self.row("purchase", "\(info.productID ?? "?")  transaction \(info.transactionID ?? "?")"))
        case .failure(let error):
            lines.append(Self.row("error", "\(error.code)  \(error.reason)"))
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// How many purchases a text report lists before summarising the rest.
    static let purchasesShownAsText = 20

    static func row(_ label: String, _ value: String) -> String {
        "  " + label.padding(toLength: 13, withPad: " ", startingAt: 0) + value
    }

    static func digestName(_ oid: String) -> String {
        switch oid {
        case ASN1OIDNames.sha1: "SHA-1"
        case ASN1OIDNames.sha256: "SHA-256"
        default: oid
        }
    }
}

/// Dotted forms of the digest identifiers shown in text reports.
enum ASN1OIDNames {
    static let sha1 = "1.3.14.3.2.26"
    static let sha256 = "2.16.840.1.101.3.4.2.1"
}
