import ReceiptModel

/// The outcome for one input, rendered as text or as one JSON line.
struct ReceiptReport {
    let name: String
    let result: Result<ReceiptInput, ReceiptError>

    init(source: InputSource) {
        name = source.name
        result = Result { () throws(ReceiptError) in try ReceiptInput(bytes: source.read()) }
    }

    var failed: Bool {
        if case .failure = result { return true }
        return false
    }

    // MARK: - JSON

    /// `{"file": …, "kind": …, "receipt": {…}}`, or `{"file": …, "error": {"code", "message"}}`.
    var jsonLine: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.field("file", name)
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
            for (index, purchase) in payload.inAppPurchases.enumerated() {
                var line = "  \(index + 1). \(purchase.productID ?? "?") ×\(purchase.quantity ?? 1)"
                line += "  \(purchase.purchaseDate.map(\.description) ?? "?")"
                if let expires = purchase.expiresDate { line += "  expires \(expires)" }
                if let cancelled = purchase.cancellationDate { line += "  cancelled \(cancelled)" }
                if let type = purchase.productType { line += "  (\(type))" }
                lines.append(line)
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
