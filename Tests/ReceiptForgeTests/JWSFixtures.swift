@_spi(Fuzzing) import BER
import Foundation
import ReceiptCrypto
import ReceiptForge
import TestSupport

/// The committed JWS fixtures (`fixtures/jws/`, requests in `fixtures/jws/descriptions/`) and helpers that take a
/// compact JWS apart with Foundation alone, independently of the forge's own encoder.
enum JWSFixtures {
    static let directory = Fixtures.directory.appendingPathComponent("jws")
    static let minter = JWSMinter(pki: Fixtures.pki)

    /// Every JWS request's name, sorted.
    static let names: [String] = {
        let folder = directory.appendingPathComponent("descriptions")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    static func request(_ name: String) throws -> JWSMintRequest {
        try JWSMintRequest(json: Data(contentsOf: directory.appendingPathComponent("descriptions/\(name).json")))
    }

    static func committed(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent("\(name).jws"), encoding: .utf8)
    }

    /// The base transaction every hostile fixture is made from.
    static func baseTransaction() throws -> JWSPayloadDescription {
        try request("valid-transaction-auto-renewable-sandbox").payload()
    }

    /// The DER of the test-PKI certificate `name`.
    static func certificateDER(_ name: String) throws -> [UInt8] {
        try Fixtures.pki.certificate(named: name).der
    }

    /// The public key of the test-PKI certificate `name`.
    static func publicKey(_ name: String) throws -> PublicKey {
        try Certificate(derEncoded: certificateDER(name)[...]).publicKey
    }
}

/// A compact JWS split and decoded with Foundation: strict base64url (no `+ / =`), JSON header.
struct DecodedJWS {
    let segments: [String]
    let header: [String: Any]
    let headerBytes: [UInt8]
    let payloadBytes: [UInt8]
    let signature: [UInt8]

    /// The bytes the signature covers: the first two segments and the dot between them.
    var signingInput: [UInt8] { Array("\(segments[0]).\(segments[1])".utf8) }

    var algorithm: String? { header["alg"] as? String }
    var keyID: String? { header["kid"] as? String }

    /// `x5c` decoded (standard base64, RFC 7515 §4.1.6), or `nil` when absent.
    var certificates: [[UInt8]]? {
        guard let entries = header["x5c"] as? [String] else { return nil }
        return entries.map { Data(base64Encoded: $0).map { [UInt8]($0) } ?? [] }
    }

    var payload: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(payloadBytes)) as? [String: Any]) ?? [:]
    }

    struct NotCompactJWS: Error {}

    init(_ text: String) throws {
        segments = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard segments.count == 3, let header = Self.base64URLDecode(segments[0]),
            let payload = Self.base64URLDecode(segments[1]), let signature = Self.base64URLDecode(segments[2]),
            let object = try JSONSerialization.jsonObject(with: Data(header)) as? [String: Any]
        else { throw NotCompactJWS() }
        self.header = object
        headerBytes = header
        payloadBytes = payload
        self.signature = signature
    }

    static func base64URLDecode(_ text: String) -> [UInt8]? {
        guard !text.contains(where: { $0 == "+" || $0 == "/" || $0 == "=" }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}

/// Independent checks with the `openssl` command, in a temporary folder.
enum OpenSSLJWSCheck {
    /// `openssl dgst -sha256 -verify`: does the 64-byte ES256 `signature` over `message` verify with the key of the
    /// DER certificate `certificate`? R and S are wrapped in a DER `ECDSA-Sig-Value` (RFC 3279 §2.2.3) here.
    static func es256Verifies(signature: [UInt8], message: [UInt8], certificate: [UInt8]) throws -> Bool {
        guard signature.count == 64 else { return false }
        var writer = DERWriter()
        writer.sequence { sequence in
            sequence.integer(unsignedBigEndian: signature.prefix(32))
            sequence.integer(unsignedBigEndian: signature.suffix(32))
        }
        return try inTemporaryFolder { folder in
            try Data(certificate).write(to: folder.appendingPathComponent("leaf.der"))
            try Data(writer.bytes).write(to: folder.appendingPathComponent("signature.der"))
            try Data(message).write(to: folder.appendingPathComponent("input"))
            guard
                try OpenSSLTool.run(
                    ["x509", "-inform", "DER", "-in", "leaf.der", "-pubkey", "-noout", "-out", "key.pem"], in: folder)
                    == 0
            else { return false }
            return try OpenSSLTool.run(
                ["dgst", "-sha256", "-verify", "key.pem", "-signature", "signature.der", "input"], in: folder) == 0
        }
    }

    /// `openssl dgst -sha256 -mac HMAC`: the HMAC-SHA256 of `message` under `key`.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) throws -> [UInt8] {
        try inTemporaryFolder { folder in
            try Data(message).write(to: folder.appendingPathComponent("input"))
            let hexKey = key.map { String(format: "%02x", $0) }.joined()
            let status = try OpenSSLTool.run(
                ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:\(hexKey)", "-binary", "-out", "mac", "input"],
                in: folder)
            guard status == 0 else { return [] }
            return [UInt8](try Data(contentsOf: folder.appendingPathComponent("mac")))
        }
    }

    private static func inTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("jws-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }
}
