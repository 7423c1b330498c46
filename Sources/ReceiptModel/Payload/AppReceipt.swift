/// A decoded App Store app receipt: the PKCS#7 container and the payload it signs.
///
/// Decoding checks structure only; whether Apple signed it is the verifier's question.
public struct AppReceipt: Sendable {
    /// The container, with the exact signed bytes and the embedded certificates.
    public let signedData: SignedData
    /// The receipt's attributes and in-app purchases.
    public let payload: ReceiptPayload
    /// The bytes the receipt was decoded from (its BER/DER), as a slice of the caller's buffer.
    public let encoded: ArraySlice<UInt8>

    /// Receipts seen in practice are under 100 KB; 8 MiB leaves room for very large purchase
    /// histories while bounding the work a hostile input can cause.
    public static let maximumSize = 8 * 1024 * 1024

    /// Decodes a receipt from its raw BER/DER bytes.
    /// - Throws: ``ReceiptError`` with a stable code.
    public init(berEncoded bytes: ArraySlice<UInt8>) throws(ReceiptError) {
        guard !bytes.isEmpty else { throw ReceiptError(.emptyInput, "the receipt is empty") }
        guard bytes.count <= Self.maximumSize else {
            throw ReceiptError(.tooLarge, "the receipt is \(bytes.count) bytes; the limit is \(Self.maximumSize)")
        }
        signedData = try SignedData(berEncoded: bytes)
        payload = try ReceiptPayload(berEncoded: signedData.payload)
        encoded = bytes
    }

    /// Decodes a receipt from its raw BER/DER bytes.
    public init(berEncoded bytes: [UInt8]) throws(ReceiptError) {
        try self.init(berEncoded: bytes[...])
    }
}
