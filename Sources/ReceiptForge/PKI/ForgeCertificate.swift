@_spi(Fuzzing) import BER
import Foundation

/// An X.509 certificate the forge embeds or names as a signer: its DER plus the two fields a CMS
/// `SignerInfo` identifies it by.
///
/// Only `tbsCertificate.serialNumber` and `tbsCertificate.issuer` are read (RFC 5280 §4.1); nothing
/// is checked, because forging means embedding certificates that are wrong on purpose.
public struct ForgeCertificate: Hashable, Sendable {
    /// The whole certificate, DER.
    public let der: [UInt8]
    /// The DER of `tbsCertificate.issuer` (a `Name`), as `IssuerAndSerialNumber` repeats it.
    public let issuerDER: [UInt8]
    /// The content octets of `tbsCertificate.serialNumber`.
    public let serialNumber: [UInt8]

    /// Reads a DER certificate.
    public init(der: [UInt8]) throws(ForgeError) {
        do {
            var top = BERReader(der[...])
            let certificate = try top.read(expecting: .sequence)
            try top.expectEnd()
            var certificateFields = try certificate.children()
            var tbs = try certificateFields.read(expecting: .sequence).children()
            // version [0] EXPLICIT Version DEFAULT v1
            _ = try tbs.readIfPresent(.contextSpecific(0, constructed: true))
            let serial = try tbs.read(expecting: .integer)
            _ = try tbs.read(expecting: .sequence)  // signature AlgorithmIdentifier
            let issuer = try tbs.read(expecting: .sequence)
            // Copies: the identity outlives the bytes it was parsed from.
            self.der = der
            self.issuerDER = Array(issuer.encoded)
            self.serialNumber = Array(serial.content)
        } catch {
            throw ForgeError(.invalidCertificate, "not an X.509 certificate: \(error)")
        }
    }

    /// Reads the first certificate of a PEM text (`-----BEGIN CERTIFICATE-----`).
    public init(pem: String) throws(ForgeError) {
        try self.init(der: PEM.decode(pem, label: "CERTIFICATE"))
    }
}

/// The PEM armour (RFC 7468): base64 between `-----BEGIN label-----` and `-----END label-----`.
enum PEM {
    static func decode(_ text: String, label: String) throws(ForgeError) -> [UInt8] {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
        else {
            throw ForgeError(.invalidCertificate, "no \(begin) … \(end) block")
        }
        let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        guard let data = Data(base64Encoded: String(body)) else {
            throw ForgeError(.invalidCertificate, "the \(label) block is not valid base64")
        }
        return [UInt8](data)
    }

    static func encode(_ der: [UInt8], label: String) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }
}
