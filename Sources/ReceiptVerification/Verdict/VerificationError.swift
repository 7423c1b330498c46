public import BER

/// An error while configuring verification: reading trust anchors from files.
///
/// Verifying a receipt never throws; its outcome is a ``Verdict``. `code` is stable and compared for equality.
public struct VerificationError: CodedError {
    /// A stable identifier of the kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case unreadableFile = "verification.unreadable_file"
            case invalidAnchor = "verification.invalid_anchor"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// A file or directory of trust anchors could not be read.
        public static let unreadableFile = Code(.unreadableFile)
        /// A trust-anchor file holds no parsable certificate.
        public static let invalidAnchor = Code(.invalidAnchor)

        /// The code as a dotted string, e.g. `verification.invalid_anchor`.
        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let reason: String
    public let file: String
    public let line: UInt

    init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

}
