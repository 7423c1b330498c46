@_spi(Fuzzing) public import ReceiptModel
public import ReceiptVerification

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
    public var startEnvironment: ReceiptEnvironment

    /// - Parameters:
    ///   - receiptData: base64 text, sent as given.
    ///   - password: the shared secret, when the app has one.
    public init(
        receiptData: String, password: String? = nil, excludeOldTransactions: Bool? = nil,
        startEnvironment: ReceiptEnvironment = .production
    ) {
        self.receiptData = receiptData
        self.password = password
        self.excludeOldTransactions = excludeOldTransactions
        self.startEnvironment = startEnvironment
    }

    /// A request for a recognized receipt: exactly its canonical bytes (the DER/BER of an app receipt, the
    /// plist text of an iOS 6 receipt), base64-encoded. Whoever verified `receipt` locally therefore sends
    /// Apple the very bytes it verified, never the client's wrapping of them.
    package init(
        receipt: ReceiptInput.CanonicalBytes, password: String? = nil, excludeOldTransactions: Bool? = nil,
        startEnvironment: ReceiptEnvironment = .production
    ) {
        self.init(
            receiptData: Base64.encode(receipt.bytes), password: password,
            excludeOldTransactions: excludeOldTransactions, startEnvironment: startEnvironment)
    }

    /// A request for raw receipt bytes in any form ``ReceiptModel/ReceiptInput`` accepts (DER/BER, base64
    /// text with white space, quotes or a `data:` prefix, iOS 6 plist text or its base64): recognized by
    /// ``ReceiptModel/ReceiptInput/canonicalBytes(of:)``, then sent as ``init(receipt:password:excludeOldTransactions:startEnvironment:)``.
    /// - Throws: ``ReceiptModel/ReceiptError`` when the bytes are not a receipt in any of those forms.
    public init(
        receiptBytes: [UInt8], password: String? = nil, excludeOldTransactions: Bool? = nil,
        startEnvironment: ReceiptEnvironment = .production
    ) throws(ReceiptError) {
        self.init(
            receipt: try ReceiptInput.canonicalBytes(of: receiptBytes[...]), password: password,
            excludeOldTransactions: excludeOldTransactions, startEnvironment: startEnvironment)
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

    public var description: String {
        "VerifyReceiptRequest(receipt-data: <\(receiptData.utf8.count) bytes>, password: \(password == nil ? "none" : "<redacted>"), start: \(startEnvironment))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["description": description], displayStyle: .struct)
    }
}
