public import ReceiptModel
package import ReceiptVerification

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
    package internal(set) var answeredBy: ReceiptEnvironment?

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
        let members = try Self.members(of: body)
        func first(_ key: String) -> JSONReader.Member? { members.first { $0.key == key } }

        guard let statusValue = first("status")?.value.integerValue, let status = Int(exactly: statusValue) else {
            throw Self.malformed("`status` is missing or not an integer")
        }
        self.status = status
        environment = try Self.optionalString(first("environment")?.value, "environment")
        isRetryable = try Self.retryable(first("is-retryable")?.value)
        if let member = first("receipt"), member.value != .null {
            guard let object = member.value.objectValue else { throw Self.malformed("`receipt` is not an object") }
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
            throw Self.malformed("`receipt.in_app` is not an array of objects")
        }
        switch first("latest_receipt_info")?.value {
        case .object(let object)?:
            latestReceiptInfo = [TransactionInfo(json: object)]
            shape = .ios6
        case let value:
            latestReceiptInfo = try Self.objects(value, "latest_receipt_info").map(TransactionInfo.init(json:))
        }
        pendingRenewalInfo = try Self.objects(first("pending_renewal_info")?.value, "pending_renewal_info")
        latestReceipt = try Self.optionalString(first("latest_receipt")?.value, "latest_receipt")
        self.shape = shape
        unknownMembers = members.filter { !Self.knownKeys.contains($0.key) }.map {
            JSONObject.Member(key: $0.key, value: $0.value)
        }
        self.body = body
    }

    /// The body's top-level members. A member this type reads, given twice, is malformed: the answer passed on to
    /// the client (``body``) must never say one thing to a reader that takes the first and another to one that
    /// takes the last.
    private static func members(of body: [UInt8]) throws(RemoteError) -> [JSONReader.Member] {
        var reader = JSONReader(body, maximumDepth: maximumDepth)
        let members: [JSONReader.Member]
        do throws(JSONReader.Failure) {
            members = try reader.topLevelMembers()
        } catch {
            throw RemoteError(.malformedResponse, "the response is not valid JSON: \(error.reason)")
        }
        var seen = Set<String>()
        for member in members where knownKeys.contains(member.key) {
            guard seen.insert(member.key).inserted else { throw malformed("`\(member.key)` is given more than once") }
        }
        return members
    }

    private static func malformed(_ reason: String) -> RemoteError { RemoteError(.malformedResponse, reason) }

    /// A string member; `nil` when absent or `null`.
    private static func optionalString(_ value: JSONValue?, _ name: String) throws(RemoteError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw malformed("`\(name)` is not a string")
        }
    }

    /// `is-retryable`: a Boolean, or 1/0 and "true"/"false" as some Apple pods send it; nothing else.
    private static func retryable(_ value: JSONValue?) throws(RemoteError) -> Bool? {
        switch value {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case .number("1")?, .string("true")?: return true
        case .number("0")?, .string("false")?: return false
        default: throw malformed("`is-retryable` is not a Boolean")
        }
    }

    /// An array of objects; empty when absent or `null`.
    private static func objects(_ value: JSONValue?, _ name: String) throws(RemoteError) -> [JSONObject] {
        switch value {
        case nil, .null?: return []
        case .array(let elements)?:
            var objects: [JSONObject] = []
            objects.reserveCapacity(elements.count)
            for element in elements {
                guard let object = element.objectValue else {
                    throw malformed("`\(name)` has an entry that is not an object")
                }
                objects.append(object)
            }
            return objects
        default: throw malformed("`\(name)` is not an array")
        }
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
