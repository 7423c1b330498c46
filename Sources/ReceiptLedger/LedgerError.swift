public import BER

/// Why the ledger could not do what it was asked: its store failed or went away, its location or
/// catalogue is wrong, or its schema cannot be migrated. `code` is stable.
public struct LedgerError: CodedError {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case unavailable = "ledger.unavailable"
            case invalidLocation = "ledger.invalid_location"
            case invalidCatalogue = "ledger.invalid_catalogue"
            case migrationFailed = "ledger.migration_failed"
            case invalidEntry = "ledger.invalid_entry"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The store failed, refused or could not be reached; nothing of the request was recorded.
        public static let unavailable = Code(.unavailable)
        /// A `--ledger` value that is not `none`, `sqlite:PATH` or a `postgres://` URL.
        public static let invalidLocation = Code(.invalidLocation)
        /// A product catalogue that is not a JSON object of product ids to kinds.
        public static let invalidCatalogue = Code(.invalidCatalogue)
        /// The schema could not be created or brought up to date (or is newer than this build knows).
        public static let migrationFailed = Code(.migrationFailed)
        /// An entry with a value outside ``LedgerLimits`` (an account, an id, a product id): refused before it
        /// joins a batch, so it fails alone and nothing of it is recorded.
        public static let invalidEntry = Code(.invalidEntry)

        public var description: String { kind.rawValue }
    }

    public let code: Code
    /// What went wrong, in words; never contains receipt data or passwords.
    public let reason: String
    public let file: String
    public let line: UInt

    public init(_ code: Code, _ reason: String, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }
}
