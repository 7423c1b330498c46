public import BER

/// Why the stand-in could not start, or a scripted failure it raises on purpose.
public struct StandInError: CodedError {
    /// A stable identifier of the failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case notStarted = "standin.not_started"
            case droppedOnPurpose = "standin.dropped_on_purpose"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The listeners stopped before reporting their ports (e.g. the port is in use).
        public static let notStarted = Code(.notStarted)
        /// Raised inside a response to drop the connection (``StandInBehaviour/dropConnection``).
        public static let droppedOnPurpose = Code(.droppedOnPurpose)

        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

}
