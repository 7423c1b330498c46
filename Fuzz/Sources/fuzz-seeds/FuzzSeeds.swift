import Foundation
@_spi(Fuzzing) import ReceiptModel
@_spi(Fuzzing) import ReceiptRemote
import ReceiptServer

/// Derives each fuzz target's seed corpus from the project's own minted fixtures, at run time, so nothing
/// derived is committed and re-minting the fixtures renews the seeds:
///
///     fuzz-seeds FIXTURES_DIR OUTPUT_DIR [MAX_BYTES]
///
/// writes `OUTPUT_DIR/fuzz-NAME/SEED` for every target. Only fixtures/ is read (never ../shared). Seeds larger
/// than MAX_BYTES (default 65536, the fuzz runs' `-max_len`) are left out.
@main
struct FuzzSeeds {
    static let requestDate = ReceiptDate(clampingMillisecondsSince1970: 1_750_000_000_123)

    let output: URL
    let maximumSize: Int
    var written = 0

    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 || arguments.count == 4 else {
            FileHandle.standardError.write(Data("usage: fuzz-seeds FIXTURES_DIR OUTPUT_DIR [MAX_BYTES]\n".utf8))
            exit(2)
        }
        let fixtures = URL(fileURLWithPath: arguments[1])
        var seeds = FuzzSeeds(
            output: URL(fileURLWithPath: arguments[2]),
            maximumSize: arguments.count == 4 ? Int(arguments[3]) ?? 65536 : 65536)
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted()
        for name in names where name.hasSuffix(".receipt") || name.hasSuffix(".b64") {
            let bytes = [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
            let stem = String(name.prefix { $0 != "." })
            try seeds.derive(stem: stem, bytes: bytes)
        }
        try seeds.deriveJWS(folder: fixtures.appendingPathComponent("jws"))
        try seeds.writeStatusBodies()
        print("fuzz-seeds: \(seeds.written) seeds from \(fixtures.path) in \(seeds.output.path)")
    }

    mutating func derive(stem: String, bytes: [UInt8]) throws {
        // Every form the input recognizer takes, and the whole-receipt targets.
        for target in ["fuzz-input", "fuzz-verify", "fuzz-ber"] { try write(bytes, target, "\(stem).raw") }
        guard let input = try? ReceiptInput(bytes: bytes) else { return }
        switch input {
        case .appReceipt(let receipt):
            try deriveAppReceipt(stem: stem, der: bytes, receipt: receipt)
        case .iOS6(let receipt):
            try deriveIOS6(stem: stem, text: bytes, receipt: receipt)
        }
    }

    mutating func deriveAppReceipt(stem: String, der: [UInt8], receipt: AppReceipt) throws {
        // An app receipt given as base64 fixture: its DER as well.
        let der = der.first == 0x30 ? der : (Base64.decode(der) ?? der)
        try write(der, "fuzz-receipt", "\(stem).der")
        try write(der, "fuzz-verify", "\(stem).der")
        try write(Array(receipt.signedData.payload), "fuzz-receipt", "\(stem).payload")
        try write(Array(receipt.signedData.payload), "fuzz-ber", "\(stem).payload")
        for (index, certificate) in receipt.signedData.certificates.enumerated() {
            try write(Array(certificate), "fuzz-ber", "\(stem).certificate-\(index)")
        }
        if let attributes = receipt.signedData.signerInfos.first?.signedAttributes {
            try write(Array(attributes), "fuzz-ber", "\(stem).signed-attributes")
        }

        let base64 = Base64.encode(der)
        try write(Array(base64.utf8), "fuzz-input", "\(stem).base64")
        try write(Array("\"\(base64)\"\n".utf8), "fuzz-input", "\(stem).quoted")
        try write(Array("data:application/pkcs7-mime;base64,\(base64)".utf8), "fuzz-input", "\(stem).data-url")
        let urlSafe = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        try write(Array(urlSafe.utf8), "fuzz-input", "\(stem).url-safe")
        try write(Array(Self.wrapped(base64).utf8), "fuzz-input", "\(stem).wrapped")
        try write(Array(base64.utf8), "fuzz-verify", "\(stem).base64")

        // Request bodies of both routes, as clients send them.
        try write(
            Self.object([
                ("receipt-data", .text(base64)), ("password", .text("0123456789abcdef0123456789abcdef")),
                ("exclude-old-transactions", .flag(true)),
            ]), "fuzz-request-json", "\(stem).verifyReceipt")
        try write(
            Self.object([
                ("receipt_data", .text(base64)), ("validation_time", .text("2025-06-15T09:30:00Z")),
                ("exclude_old_transactions", .flag(false)), ("allow_remote", .text("false")),
            ]), "fuzz-request-json", "\(stem).v1-verify")
        // JSON lets a client escape `/` as `\/`; many do.
        try write(
            Array("{\"receipt-data\":\"\(base64.replacingOccurrences(of: "/", with: "\\/"))\"}".utf8),
            "fuzz-request-json", "\(stem).escaped")

        // Apple's answer for this receipt, in the server's rendering of Apple's shape.
        let latest = LatestReceiptInfo.purchases(in: receipt.payload)
        try write(
            VerifyReceiptBody.valid(
                payload: receipt.payload, environment: "Sandbox", requestDate: Self.requestDate,
                latestReceiptInfo: latest, latestReceipt: Array(base64.utf8)[...]),
            "fuzz-apple-response", "\(stem).status-0")
    }

    mutating func deriveIOS6(stem: String, text: [UInt8], receipt: IOS6TransactionReceipt) throws {
        let plist = Base64.decode(text) ?? text
        try write(text, "fuzz-ios6", "\(stem).base64")
        try write(plist, "fuzz-ios6", "\(stem).plist")
        try write(receipt.purchaseInfoBytes, "fuzz-ios6", "\(stem).purchase-info")
        try write(receipt.signature.certificate, "fuzz-ber", "\(stem).certificate")
        try write(plist, "fuzz-input", "\(stem).plist")
        try write(plist, "fuzz-verify", "\(stem).plist")
        try write(receipt.purchaseInfoBytes, "fuzz-verify", "\(stem).purchase-info")
        try write(
            Self.object([("receipt-data", .text(String(decoding: text, as: UTF8.self)))]), "fuzz-request-json",
            "\(stem).verifyReceipt")
    }

    /// The JWS fixtures (the conformance corpus of every notification type included): each JWS for the JWS reader
    /// and verifier and the input recognizer, each notification body for the notification endpoint's parser and the
    /// recognizer, and each nested JWS on its own.
    mutating func deriveJWS(folder: URL) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()) ?? []
        for name in names where name.hasSuffix(".jws") || name.hasSuffix(".body.json") {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            if name.hasSuffix(".body.json") {
                try write(bytes, "fuzz-notification", name)
                try write(bytes, "fuzz-input", name)
                continue
            }
            try write(bytes, "fuzz-jws", name)
            try write(bytes, "fuzz-input", name)
            guard
                case .notification(let notification)? = (try? CompactJWS(bytes[...])).map({
                    JWSPayload($0.payload, kind: .notification)
                })
            else { continue }
            for nested in notification.nestedJWS {
                try write(Array(nested.text.utf8), "fuzz-jws", "\(name).\(nested.member)")
            }
        }
    }

    /// Status-only answers, as Apple sends them.
    mutating func writeStatusBodies() throws {
        for status in [21002, 21003, 21004, 21007, 21008, 21010, 21100, 21199] {
            try write(VerifyReceiptBody.status(status), "fuzz-apple-response", "status-\(status)")
        }
    }

    mutating func write(_ bytes: [UInt8], _ target: String, _ name: String) throws {
        guard !bytes.isEmpty, bytes.count <= maximumSize else { return }
        let folder = output.appendingPathComponent(target)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: folder.appendingPathComponent(name))
        written += 1
    }

    enum Member {
        case text(String)
        case flag(Bool)
    }

    static func object(_ members: [(String, Member)]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        for (name, value) in members {
            switch value {
            case .text(let text): writer.field(name, text)
            case .flag(let flag): writer.field(name, flag)
            }
        }
        writer.endObject()
        return writer.bytes
    }

    /// Base64 in 76-column lines with CRLF (RFC 2045), as mail clients and some SDKs send it.
    static func wrapped(_ base64: String) -> String {
        var lines: [Substring] = []
        var rest = base64[...]
        while !rest.isEmpty {
            lines.append(rest.prefix(76))
            rest = rest.dropFirst(76)
        }
        return lines.joined(separator: "\r\n")
    }
}
