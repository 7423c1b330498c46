@_spi(Fuzzing) import BER
import ReceiptCrypto

extension ReceiptDescription {
    /// The device hash (attribute 5) Apple writes for the device `identifier`: SHA-1(identifier ‖ opaque value
    /// (attribute 4) ‖ the bundle id attribute's inner DER, tag and length included).
    ///
    /// Apple hashes whatever identifier the platform has: `identifierForVendor`'s 16 bytes on iOS, the primary
    /// network interface's 6-byte MAC address on macOS. The forge takes any length, so receipts of either
    /// platform (and odd ones) can be minted.
    /// - Throws: ``ForgeError`` ``ForgeError/Code/invalidRequest`` when the description has no opaque value or
    ///   no bundle id (the hash covers both), ``ForgeError/Code/signingFailed`` when hashing fails.
    package func deviceHash(for identifier: [UInt8]) throws(ForgeError) -> ByteString {
        guard let opaqueValue, let bundleID else {
            throw ForgeError(.invalidRequest, "a device hash covers the opaque value and the bundle id: set both")
        }
        // The same inner DER `payloadDER()` writes into attribute 2's OCTET STRING.
        var bundleDER = DERWriter()
        bundleDER.utf8String(bundleID)
        do {
            return ByteString(
                try DigestAlgorithm.sha1.hash(concatenating: [
                    identifier[...], opaqueValue.bytes[...], bundleDER.bytes[...],
                ])
            )
        } catch {
            throw ForgeError(.signingFailed, "hashing failed: \(error)")
        }
    }

    /// Binds the receipt to a device: sets ``sha1Hash`` to ``deviceHash(for:)`` of `identifier` (16 bytes for an
    /// iOS device, 6 for a Mac's MAC address).
    public mutating func bind(toDevice identifier: [UInt8]) throws(ForgeError) {
        sha1Hash = try deviceHash(for: identifier)
    }
}
