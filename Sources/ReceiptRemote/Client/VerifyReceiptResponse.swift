public import ReceiptModel
public import ReceiptVerification

/// Apple's verifyReceipt answer, decoded into typed values with nothing dropped.
///
/// The typed fields cover what callers branch on; ``body`` is the response exactly as received and
/// ``receiptJSON`` the `receipt` object's exact bytes, so a server can pass Apple's answer through
/// unchanged. Keys this type does not know are in ``unknownMembers``.
///
/// Decoding is strict about what it relies on (`status` must be an integer; `receipt`,
/// `latest_receipt_info` and `pending_renewal_info` must have their documented shapes when present)
/// and throws ``RemoteError`` with `remote.malformed_response` otherwise: a hostile body never
/// turns into a success.
public struct VerifyReceiptResponse: Sendable {
    /// The two shapes verifyReceipt answers in.
    public enum Shape: String, Sendable, Hashable {
        /// An app receipt: `receipt` has `bundle_id`, `in_app[]`; `latest_receipt_info` is an array.
        case appReceipt
        /// An iOS 6 transaction receipt: `receipt` holds purchase-info keys (`bid`, `product_id`, …);
        /// `latest_receipt_info` is one object.
        case ios6
    }

    /// verifyReceipt's `status` (`docs/receipt-format.md` §4).
    public let status: Int
    /// `environment`: `Production` or `Sandbox` (absent in iOS 6 answers).
    public let environment: String?
    /// The endpoint whose answer this is, set by ``VerifyReceiptClient`` (after any 21007/21008 hop).
    public internal(set) var answeredBy: ReceiptEnvironment?

    /// Apple's `environment` when it sent one, else the environment of the endpoint that answered
    /// (iOS 6 answers carry none). Never the receipt's own unsigned claim.
    public var effectiveEnvironment: String? {
        environment ?? answeredBy.map { $0 == .production ? "Production" : "Sandbox" }
    }
    /// `is-retryable` (on 21100–21199).
    public let isRetryable: Bool?
    /// `receipt`, as an object.
    public let receipt: JSONObject?
    /// `receipt`'s exact bytes in ``body``.
    public let receiptJSON: [UInt8]?
    /// `latest_receipt_info`: every entry of the array, or the one iOS 6 object.
    public let latestReceiptInfo: [TransactionInfo]
    /// `pending_renewal_info` entries, each kept whole.
    public let pendingRenewalInfo: [JSONObject]
    /// `latest_receipt`: base64 of the newest receipt.
    public let latestReceipt: String?
    /// Which response shape this is.
    public let shape: Shape
    /// Members with keys not listed above, in order, values as received.
    public let unknownMembers: [JSONObject.Member]
    /// The body exactly as received.
    public let body: [UInt8]

    /// Keys decoded into the typed fields.
    static let knownKeys: Set<String> = [
        "status", "environment", "is-retryable", "receipt", "latest_receipt_info", "pending_renewal_info",
        "latest_receipt",
    ]

    /// Decodes a response body.
    /// - Throws: ``RemoteError`` (`remote.malformed_response`).
    /// Apple's responses nest four levels deep; anything far deeper is hostile.
    static let maximumDepth = 64

    public init(body: [UInt8]) throws(RemoteError) {
        var reader = JSONReader(body, maximumDepth: Self.maximumDepth)
        let members: [JSONReader.Member]
        do throws(JSONReader.Failure) {
            members = try reader.topLevelMembers()
        } catch {
            throw RemoteError(.malformedResponse, "the response is not valid JSON: \(error.reason)")
        }
        func first(_ key: String) -> JSONReader.Member? { members.first { $0.key == key } }
        func malformed(_ reason: String) -> RemoteError { RemoteError(.malformedResponse, reason) }

        guard let statusValue = first("status")?.value.integerValue, let status = Int(exactly: statusValue) else {
            throw malformed("`status` is missing or not an integer")
        }
        self.status = status
        switch first("environment")?.value {
        case nil, .null?: environment = nil
        case .string(let value)?: environment = value
        default: throw malformed("`environment` is not a string")
        }
        switch first("is-retryable")?.value {
        case nil, .null?: isRetryable = nil
        case .bool(let value)?: isRetryable = value
        // Seen as 1/0 and "true"/"false" from some Apple pods; accepted, nothing else.
        case .number("1")?, .string("true")?: isRetryable = true
        case .number("0")?, .string("false")?: isRetryable = false
        default: throw malformed("`is-retryable` is not a Boolean")
        }
        if let member = first("receipt"), member.value != .null {
            guard let object = member.value.objectValue else { throw malformed("`receipt` is not an object") }
            receipt = object
            // Copies: the receipt's bytes are handed on separately from the body.
            receiptJSON = Array(body[member.range])
        } else {
            receipt = nil
            receiptJSON = nil
        }
        var shape: Shape = .appReceipt
        if let receipt, receipt["in_app"] == nil, receipt["bundle_id"] == nil, receipt["bid"] != nil {
            shape = .ios6
        }
        if let inApp = receipt?["in_app"], inApp.arrayValue?.allSatisfy({ $0.objectValue != nil }) != true {
            throw malformed("`receipt.in_app` is not an array of objects")
        }
        switch first("latest_receipt_info")?.value {
        case nil, .null?: latestReceiptInfo = []
        case .array(let elements)?:
            var entries: [TransactionInfo] = []
            for element in elements {
                guard let object = element.objectValue else {
                    throw malformed("`latest_receipt_info` has an entry that is not an object")
                }
                entries.append(TransactionInfo(json: object))
            }
            latestReceiptInfo = entries
        case .object(let object)?:
            latestReceiptInfo = [TransactionInfo(json: object)]
            shape = .ios6
        default: throw malformed("`latest_receipt_info` is neither an array nor an object")
        }
        switch first("pending_renewal_info")?.value {
        case nil, .null?: pendingRenewalInfo = []
        case .array(let elements)?:
            var entries: [JSONObject] = []
            for element in elements {
                guard let object = element.objectValue else {
                    throw malformed("`pending_renewal_info` has an entry that is not an object")
                }
                entries.append(object)
            }
            pendingRenewalInfo = entries
        default: throw malformed("`pending_renewal_info` is not an array")
        }
        switch first("latest_receipt")?.value {
        case nil, .null?: latestReceipt = nil
        case .string(let value)?: latestReceipt = value
        default: throw malformed("`latest_receipt` is not a string")
        }
        self.shape = shape
        unknownMembers = members.filter { !Self.knownKeys.contains($0.key) }.map {
            JSONObject.Member(key: $0.key, value: $0.value)
        }
        self.body = body
    }

    /// `receipt.in_app` entries (app receipts), or the iOS 6 `receipt` itself as one transaction.
    public var inApp: [TransactionInfo] {
        guard let receipt else { return [] }
        if shape == .ios6 { return [TransactionInfo(json: receipt)] }
        return receipt["in_app"]?.arrayValue?.compactMap { $0.objectValue.map(TransactionInfo.init(json:)) } ?? []
    }

    /// `receipt.bundle_id`, or `bid` for iOS 6 receipts.
    public var bundleID: String? { receipt?.text("bundle_id") ?? receipt?.text("bid") }

    /// The newest `expires_date` among ``latestReceiptInfo`` and ``inApp``.
    public var newestExpiry: ReceiptDate? {
        (latestReceiptInfo + inApp).compactMap(\.expiresDate).max()
    }
}
