/// An iOS 6 style transaction receipt (`SKPaymentTransaction.transactionReceipt`), decoded.
///
/// What a client sends is base64 of an old-style property list text:
///
/// ```
/// { "signature" = "<base64 blob>"; "purchase-info" = "<base64 plist>"; "environment" = "Sandbox"; "pod" = "100"; … }
/// ```
///
/// `purchase-info` is base64 of another old-style plist (`bid`, `bvrs`, `product-id`, `transaction-id`, …).
/// The `signature` blob is `version (1 byte) ‖ RSA signature (128 bytes for version 2, 256 for 3) ‖
/// certificate length (4 bytes, big-endian) ‖ certificate DER`; the RSA-SHA1 signature covers
/// `version ‖ purchase-info bytes` (``signedBytes``). Decoding is bounded in every dimension so hostile
/// input fails with a ``ReceiptError`` and never traps.
public struct IOS6TransactionReceipt: Sendable {
    /// The key verifyReceipt shows for a purchase-info key: `_` for every `-` (`product-id` → `product_id`).
    package static func responseKey(_ key: String) -> String {
        String(key.map { $0 == "-" ? "_" : $0 })
    }

    /// The most base64 or plist bytes accepted (real receipts are 2–4 KB).
    public static let maximumSize = 64 * 1024
    /// The most entries accepted in either property list.
    package static let maximumEntries = 256
    /// The largest embedded certificate accepted.
    package static let maximumCertificateSize = 16 * 1024

    /// Every top-level entry, as text (the `signature` and `purchase-info` values still in base64).
    public let entries: [String: String]
    /// The decoded `signature` blob's parts.
    public let signature: Signature
    /// The decoded `purchase-info` bytes: the plist text the signature covers.
    public let purchaseInfoBytes: [UInt8]
    /// The decoded `purchase-info` plist.
    public let purchaseInfo: PurchaseInfo

    /// `environment` (`Sandbox`; absent in production receipts).
    public var environment: String? { entries["environment"] }
    /// `pod`, the Apple data centre that signed the receipt.
    public var pod: String? { entries["pod"] }
    /// `signing-status`.
    public var signingStatus: String? { entries["signing-status"] }

    /// The bytes the RSA-SHA1 signature covers: the version byte, then the decoded purchase-info.
    public var signedBytes: [UInt8] { [signature.version] + purchaseInfoBytes }

    /// The parts of the `signature` blob.
    public struct Signature: Sendable {
        /// 2 (RSA-1024 signature) or 3 (RSA-2048).
        public let version: UInt8
        /// The raw RSA PKCS#1 v1.5 signature.
        public let signature: [UInt8]
        /// The DER of the signing certificate ("PurchaseReceiptCertificate").
        public let certificate: [UInt8]

        /// Splits a decoded blob, checking each length against what remains.
        @_spi(Fuzzing) public init(blob: [UInt8]) throws(ReceiptError) {
            guard let version = blob.first else { throw ReceiptError(.invalidAttribute, "the signature blob is empty") }
            let signatureLength: Int
            switch version {
            case 2: signatureLength = 128
            case 3: signatureLength = 256
            default: throw ReceiptError(.invalidAttribute, "unknown signature blob version \(version)")
            }
            let lengthStart = 1 + signatureLength
            guard blob.count >= lengthStart + 4 else {
                throw ReceiptError(.invalidAttribute, "the signature blob is truncated (\(blob.count) bytes)")
            }
            var certificateLength = 0
            for byte in blob[lengthStart..<(lengthStart + 4)] { certificateLength = certificateLength << 8 | Int(byte) }
            let certificateStart = lengthStart + 4
            guard certificateLength > 0, certificateLength <= IOS6TransactionReceipt.maximumCertificateSize,
                certificateLength == blob.count - certificateStart
            else {
                throw ReceiptError(
                    .invalidAttribute,
                    "the certificate length \(certificateLength) does not match the \(blob.count - certificateStart) bytes left"
                )
            }
            self.version = version
            // Copies: the blob is a decoded temporary; these few hundred bytes outlive it.
            signature = Array(blob[1..<lengthStart])
            certificate = Array(blob[certificateStart...])
        }
    }

    /// The decoded `purchase-info` property list.
    public struct PurchaseInfo: Sendable {
        /// Every entry, as text.
        public let entries: [String: String]

        public var bundleID: String? { entries["bid"] }
        public var bundleVersion: String? { entries["bvrs"] }
        public var productID: String? { entries["product-id"] }
        public var transactionID: String? { entries["transaction-id"] }
        public var originalTransactionID: String? { entries["original-transaction-id"] }
        public var itemID: String? { entries["item-id"] }
        public var webOrderLineItemID: String? { entries["web-order-line-item-id"] }
        public var quantity: Int64? { entries["quantity"].flatMap { Int64($0) } }
        /// `purchase-date-ms`.
        public var purchaseDate: ReceiptDate? { Self.milliseconds(entries["purchase-date-ms"]) }
        /// `original-purchase-date-ms`.
        public var originalPurchaseDate: ReceiptDate? { Self.milliseconds(entries["original-purchase-date-ms"]) }
        /// `expires-date` (milliseconds in iOS 6 auto-renewable receipts).
        public var expiresDate: ReceiptDate? { Self.milliseconds(entries["expires-date"]) }

        init(entries: [String: String]) { self.entries = entries }

        /// The entries that hold milliseconds since 1970.
        static let millisecondKeys = ["purchase-date-ms", "original-purchase-date-ms", "expires-date"]

        private static func milliseconds(_ text: String?) -> ReceiptDate? {
            guard let text, let value = Int64(text) else { return nil }
            return ReceiptDate(millisecondsSince1970: value)
        }
    }

    /// Decodes what a client sends: base64 of the plist text (whitespace ignored).
    public init(base64Encoded text: ArraySlice<UInt8>) throws(ReceiptError) {
        guard text.count <= Self.maximumSize * 4 / 3 + 4 else {
            throw ReceiptError(.tooLarge, "\(text.count) base64 bytes exceed the iOS 6 receipt limit")
        }
        let plist = try Self.base64Decode(text, what: "the iOS 6 receipt")
        try self.init(plistText: plist[...])
    }

    /// Decodes the plist text itself.
    public init(plistText: ArraySlice<UInt8>) throws(ReceiptError) {
        guard plistText.contains(where: { !OldStylePlist.isWhitespace($0) }) else {
            throw ReceiptError(.emptyInput, "the iOS 6 receipt is empty")
        }
        guard plistText.count <= Self.maximumSize else {
            throw ReceiptError(.tooLarge, "\(plistText.count) bytes exceed the iOS 6 receipt limit")
        }
        let top = try OldStylePlist.parseDictionary(plistText, maximumEntries: Self.maximumEntries)
        guard let signatureText = top["signature"], let purchaseText = top["purchase-info"] else {
            throw ReceiptError(.unrecognizedFormat, "an iOS 6 receipt needs both signature and purchase-info")
        }
        let blob = try Self.base64Decode(signatureText.utf8, what: "signature")
        let purchaseBytes = try Self.base64Decode(purchaseText.utf8, what: "purchase-info")
        entries = top
        signature = try Signature(blob: blob)
        purchaseInfoBytes = purchaseBytes
        purchaseInfo = PurchaseInfo(
            entries: try OldStylePlist.parseDictionary(purchaseBytes[...], maximumEntries: Self.maximumEntries))
        // A date that is a number but no representable instant is malformed, not "absent".
        for key in PurchaseInfo.millisecondKeys {
            if let text = purchaseInfo.entries[key], let value = Int64(text),
                ReceiptDate(millisecondsSince1970: value) == nil
            {
                throw ReceiptError(.invalidDate, "purchase-info \(key) \(value) is not a representable instant")
            }
        }
    }

    private static func base64Decode(_ text: some Collection<UInt8>, what: String) throws(ReceiptError) -> [UInt8] {
        // One copy of the text into an array: iOS 6 receipts are small and off the hot path.
        guard let bytes = Base64.decode(Array(text)) else {
            throw ReceiptError(.invalidBase64, "\(what) is not valid base64")
        }
        return bytes
    }

    /// `true` when `bytes` start (after whitespace) like a plist dictionary, `{`: how a verifier tells
    /// an iOS 6 receipt from a PKCS#7 one (which starts with 0x30).
    @_spi(Fuzzing) public static func looksLikePlistText(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.first { !OldStylePlist.isWhitespace($0) } == UInt8(ascii: "{")
    }
}
