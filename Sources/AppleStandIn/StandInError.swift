import BER

/// Why the stand-in could not start, or a scripted failure it raises on purpose.
package struct StandInError: CodedError {
    /// A stable identifier of the failure.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Sendable {
            case notStarted = "standin.not_started"
            case droppedOnPurpose = "standin.dropped_on_purpose"
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// The listeners stopped before reporting their ports (e.g. the port is in use).
        package static let notStarted = Code(.notStarted)
        /// Raised inside a response to drop the connection (``StandInBehaviour/dropConnection``).
        package static let droppedOnPurpose = Code(.droppedOnPurpose)

        package var description: String { kind.rawValue }
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

}
