/// Why bytes could not be read as BER.
///
/// `code` is stable and is what equality compares; `reason` and `offset` (the index in the input
/// where the problem was found) are for people.
public struct BERError: CodedError {
    /// A stable identifier for the kind of malformation.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case truncated = "ber.truncated"
            case invalidTag = "ber.invalid_tag"
            case invalidLength = "ber.invalid_length"
            case lengthExceedsInput = "ber.length_exceeds_input"
            case indefinitePrimitive = "ber.indefinite_primitive"
            case unexpectedEndOfContents = "ber.unexpected_end_of_contents"
            case missingEndOfContents = "ber.missing_end_of_contents"
            case depthExceeded = "ber.depth_exceeded"
            case unexpectedTag = "ber.unexpected_tag"
            case missingElement = "ber.missing_element"
            case trailingBytes = "ber.trailing_bytes"
            case invalidInteger = "ber.invalid_integer"
            case integerOverflow = "ber.integer_overflow"
            case invalidObjectIdentifier = "ber.invalid_object_identifier"
            case tooManySegments = "ber.too_many_segments"
            case tooManyElements = "ber.too_many_elements"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The input ends inside an element's identifier or length octets.
        public static let truncated = Code(.truncated)
        /// A high tag number is encoded with a padding octet or exceeds 32 bits.
        public static let invalidTag = Code(.invalidTag)
        /// The length octets use the reserved form or more than eight octets.
        public static let invalidLength = Code(.invalidLength)
        /// A definite length runs past the end of the enclosing element or input.
        public static let lengthExceedsInput = Code(.lengthExceedsInput)
        /// A primitive element claims an indefinite length (X.690 §8.1.3.2).
        public static let indefinitePrimitive = Code(.indefinitePrimitive)
        /// End-of-contents octets appear where no indefinite-length element is open.
        public static let unexpectedEndOfContents = Code(.unexpectedEndOfContents)
        /// An indefinite-length element is not closed before its enclosing input ends.
        public static let missingEndOfContents = Code(.missingEndOfContents)
        /// Nesting goes deeper than ``BERLimits/maximumDepth``.
        public static let depthExceeded = Code(.depthExceeded)
        /// An element has a different tag from the one the structure requires.
        public static let unexpectedTag = Code(.unexpectedTag)
        /// A required element is missing at the end of its enclosing element.
        public static let missingElement = Code(.missingElement)
        /// Bytes follow where the structure must end.
        public static let trailingBytes = Code(.trailingBytes)
        /// An INTEGER has no content octets or is constructed.
        public static let invalidInteger = Code(.invalidInteger)
        /// An INTEGER does not fit in 64 bits.
        public static let integerOverflow = Code(.integerOverflow)
        /// An OBJECT IDENTIFIER's arcs are not well-formed base-128.
        public static let invalidObjectIdentifier = Code(.invalidObjectIdentifier)
        /// A constructed string has more segments than ``BERLimits/maximumStringSegments``.
        public static let tooManySegments = Code(.tooManySegments)
        /// A list holds more elements than its format allows (each would cost a decode).
        public static let tooManyElements = Code(.tooManyElements)

        /// The code as a dotted string, e.g. `ber.truncated`.
        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let reason: String
    /// The index in the input where the problem was found.
    public let offset: Int

    @inlinable
    public init(_ code: Code, _ reason: String, at offset: Int) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(code) at byte \(offset): \(reason)" }

}
