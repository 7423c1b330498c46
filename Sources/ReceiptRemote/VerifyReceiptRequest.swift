import ReceiptModel

/// What is sent to verifyReceipt: `{"receipt-data", "password", "exclude-old-transactions"}`.
///
/// Its descriptions never show the receipt data or the shared secret, so logging or dumping a request
/// cannot leak them.
public struct VerifyReceiptRequest: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// `receipt-data`: base64 of the receipt (PKCS#7 DER/BER, or an iOS 6 receipt's plist text).
    public var receiptData: String
    /// `password`: the app's shared secret; needed for `latest_receipt_info` of auto-renewable subscriptions.
    public var password: String?
    /// `exclude-old-transactions`: only the newest transaction of each subscription.
    public var excludeOldTransactions: Bool?
    /// The endpoint asked first. Apple's advice is production first, then sandbox on 21007.
    public var startEnvironment: VerifyReceiptEnvironment

    /// - Parameters:
    ///   - receiptData: base64 text, sent as given.
    ///   - password: the shared secret, when the app has one.
    public init(
        receiptData: String, password: String? = nil, excludeOldTransactions: Bool? = nil,
        startEnvironment: VerifyReceiptEnvironment = .production
    ) {
        self.receiptData = receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
        self.startEnvironment = startEnvironment
    }

    /// A request for raw receipt bytes in any form ``ReceiptVerification/ReceiptVerifier`` accepts: DER/BER
    /// and iOS 6 plist text are base64-encoded; base64 text is sent as it is, less surrounding white space,
    /// quotes and a `data:…,` prefix.
    public init(
        receiptBytes: [UInt8], password: String? = nil, excludeOldTransactions: Bool? = nil,
        startEnvironment: VerifyReceiptEnvironment = .production
    ) {
        let data: String
        if receiptBytes.first == 0x30 || IOS6TransactionReceipt.looksLikePlistText(receiptBytes[...]) {
            data = Base64.encode(receiptBytes)
        } else {
            data = String(decoding: Self.trimmed(receiptBytes[...]), as: UTF8.self)
        }
        self.init(
            receiptData: data, password: password, excludeOldTransactions: excludeOldTransactions,
            startEnvironment: startEnvironment)
    }

    /// The JSON body.
    public var body: [UInt8] {
        var writer = JSONWriter(capacity: receiptData.utf8.count + 128)
        writer.beginObject()
        writer.field("receipt-data", receiptData)
        if let password { writer.field("password", password) }
        if let excludeOldTransactions { writer.field("exclude-old-transactions", excludeOldTransactions) }
        writer.endObject()
        return writer.bytes
    }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var text = bytes.drop(while: isSpace)
        while let last = text.last, isSpace(last) { text = text.dropLast() }
        if text.count >= 2, text.first == UInt8(ascii: "\""), text.last == UInt8(ascii: "\"") {
            text = text.dropFirst().dropLast()
        }
        // RFC 2397 `data:[type][;base64],`: Apple wants the base64 alone.
        if text.starts(with: "data:".utf8), let comma = text.firstIndex(of: UInt8(ascii: ",")) {
            text = text[(comma + 1)...]
        }
        return text
    }

    public var description: String {
        "VerifyReceiptRequest(receipt-data: <\(receiptData.utf8.count) bytes>, password: \(password == nil ? "none" : "<redacted>"), start: \(startEnvironment))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}
