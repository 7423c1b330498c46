import Foundation
import ReceiptCrypto

/// Mints iOS 6 style transaction receipts: old-style plist text with a signed `purchase-info`.
///
/// The `signature` blob is `version 3 ‖ 256-byte RSA-SHA1 signature over (version ‖ purchase-info
/// bytes) ‖ 4-byte big-endian certificate length ‖ certificate DER` (`docs/receipt-format.md` §6). Only
/// the signer's certificate is embedded, as in Apple's: the chain cannot be completed offline.
package enum IOS6ReceiptMinter {
    /// The blob version for 256-byte (RSA 2048) signatures.
    package static let signatureVersion: UInt8 = 3

    /// Mints the receipt's plist text (what apps base64-encode and send).
    ///
    /// - Parameters:
    ///   - description: the content.
    ///   - identity: the certificate embedded in the blob and the key that signs.
    ///   - embeddedPurchaseInfo: entries carried instead of the signed ones; passing them makes a
    ///     receipt tampered after signing.
    package static func mint(
        _ description: IOS6ReceiptDescription, identity: SigningIdentity,
        embeddedPurchaseInfo: [IOS6PlistEntry]? = nil
    ) throws(ForgeError) -> [UInt8] {
        let signedInfo = plistText(description.purchaseInfo, trailingNewline: false)
        let carriedInfo = embeddedPurchaseInfo.map { plistText($0, trailingNewline: false) } ?? signedInfo
        let digest = try ReceiptMinter.hash(([signatureVersion] + signedInfo)[...], .sha1)
        let signature: [UInt8]
        do {
            signature = try identity.privateKey.signRSAPKCS1(digest: digest, algorithm: .sha1)
        } catch {
            throw ForgeError(.signingFailed, "RSA signing failed: \(error)")
        }
        guard signature.count == 256 else {
            throw ForgeError(
                .invalidKey, "version 3 blobs need a 2048-bit key; the signature has \(signature.count) bytes")
        }
        let certificate = identity.certificate.der
        guard let length = UInt32(exactly: certificate.count) else {
            throw ForgeError(.invalidCertificate, "the certificate is too large for a 4-byte length")
        }
        let lengthBytes: [UInt8] = [
            UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF),
            UInt8(length & 0xFF),
        ]
        let blob = [signatureVersion] + signature + lengthBytes + certificate

        var outer = [
            IOS6PlistEntry("signature", Data(blob).base64EncodedString()),
            IOS6PlistEntry("purchase-info", Data(carriedInfo).base64EncodedString()),
        ]
        if let environment = description.environment { outer.append(IOS6PlistEntry("environment", environment)) }
        if let pod = description.pod { outer.append(IOS6PlistEntry("pod", pod)) }
        if let status = description.signingStatus { outer.append(IOS6PlistEntry("signing-status", status)) }
        return plistText(outer, trailingNewline: true, compact: description.compact == true)
    }

    /// An old-style plist dictionary: `{`, one tab-indented `"key" = "value";` per entry, `}`; `compact`: all on
    /// one line, `{"key" = "value";…}`.
    static func plistText(_ entries: [IOS6PlistEntry], trailingNewline: Bool, compact: Bool = false) -> [UInt8] {
        var text = compact ? "{" : "{\n"
        for entry in entries {
            let line = "\"\(escaped(entry.key))\" = \"\(escaped(entry.value))\";"
            text += compact ? line : "\t" + line + "\n"
        }
        text += trailingNewline ? "}\n" : "}"
        return Array(text.utf8)
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
}
