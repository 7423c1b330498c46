public import BER

/// Why bytes could not be decoded as an App Store receipt.
///
/// `code` is stable and is what equality compares. When the cause is malformed BER, `underlying`
/// carries the reader's own error (its code says exactly what was wrong, e.g. `ber.truncated`).
public struct ReceiptError: CodedError {
    /// A stable identifier of the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case emptyInput = "receipt.empty_input"
            case tooLarge = "receipt.too_large"
            case invalidBase64 = "receipt.invalid_base64"
            case malformedEncoding = "receipt.malformed_encoding"
            case notSignedData = "receipt.not_signed_data"
            case unsupportedContentType = "receipt.unsupported_content_type"
            case missingContent = "receipt.missing_content"
            case invalidPayload = "receipt.invalid_payload"
            case invalidAttribute = "receipt.invalid_attribute"
            case duplicateAttribute = "receipt.duplicate_attribute"
            case invalidDate = "receipt.invalid_date"
            case unrecognizedFormat = "receipt.unrecognized_format"
            case unreadableInput = "receipt.unreadable_input"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The input holds no bytes (or only whitespace).
        public static let emptyInput = Code(.emptyInput)
        /// The input exceeds the size limit.
        public static let tooLarge = Code(.tooLarge)
        /// Text input is not valid base64.
        public static let invalidBase64 = Code(.invalidBase64)
        /// The bytes are not well-formed BER; ``ReceiptError/underlying`` says how.
        public static let malformedEncoding = Code(.malformedEncoding)
        /// The ContentInfo is not of type `signedData`.
        public static let notSignedData = Code(.notSignedData)
        /// The encapsulated content is not of type `data`.
        public static let unsupportedContentType = Code(.unsupportedContentType)
        /// The SignedData carries no encapsulated content (a detached signature).
        public static let missingContent = Code(.missingContent)
        /// The payload is not a SET OF ReceiptAttribute.
        public static let invalidPayload = Code(.invalidPayload)
        /// A documented attribute's value has the wrong type or shape.
        public static let invalidAttribute = Code(.invalidAttribute)
        /// A documented single-valued attribute occurs twice.
        public static let duplicateAttribute = Code(.duplicateAttribute)
        /// A date attribute is not in any of the forms receipts use.
        public static let invalidDate = Code(.invalidDate)
        /// The input is neither a PKCS#7 receipt nor an iOS 6 transaction receipt.
        public static let unrecognizedFormat = Code(.unrecognizedFormat)

        /// The input file or stream could not be read.
        public static let unreadableInput = Code(.unreadableInput)

        /// The code as a dotted string, e.g. `receipt.invalid_date`.
        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let reason: String
    /// The reader's error when the cause is malformed BER.
    package let underlying: BERError?
    public let file: String
    public let line: UInt

    public init(_ code: Code, _ reason: String, underlying: BERError? = nil, file: String = #fileID, line: UInt = #line)
    {
        self.code = code
        self.reason = reason
        self.underlying = underlying
        self.file = file
        self.line = line
    }

}

extension ReceiptError {
    /// Turns whatever a decoding step threw into a ``ReceiptError``: receipt errors pass through,
    /// reader errors become ``Code/malformedEncoding`` with the reader's error kept as `underlying`.
    init(mapping error: any Error, while context: String) {
        switch error {
        case let receiptError as ReceiptError:
            self = receiptError
        case let berError as BERError:
            self.init(.malformedEncoding, "\(context): \(berError)", underlying: berError)
        default:
            self.init(.malformedEncoding, "\(context): \(error)")
        }
    }
}
