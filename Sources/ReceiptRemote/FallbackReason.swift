public import ReceiptVerification

/// One finding in a ``FallbackResult``: a local ``ReceiptVerification/Reason``, a ``RemoteError``, or what
/// Apple's answer meant. Branch on ``code``; ``message`` is for people.
public struct FallbackReason: Sendable, Hashable, CustomStringConvertible {
    /// A stable dotted code: the local verifier's (`ios6.chain_incomplete`, …), the remote client's
    /// (`remote.unavailable`, …), or one of the decision codes below.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Decision: String, Sendable {
            case rejected = "remote.rejected"
            case sharedSecretRejected = "remote.shared_secret_rejected"
            case requestRejected = "remote.request_rejected"
            case unexpectedStatus = "remote.unexpected_status"
            case subscriptionExpired = "remote.subscription_expired"
            case receiptMismatch = "remote.receipt_mismatch"
            case subscriptionExpiredInReceipt = "subscription.expired_in_receipt"
        }
        private enum Kind: Hashable, Sendable {
            case local(Reason.Code)
            case remote(RemoteError.Code)
            case decision(Decision)
        }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// A local verification code.
        public init(_ code: Reason.Code) { kind = .local(code) }
        /// A remote client code.
        public init(_ code: RemoteError.Code) { kind = .remote(code) }

        /// Apple says the receipt is not genuine or not authorized (21003, 21010): `invalid`.
        public static let rejected = Code(.decision(.rejected))
        /// Apple refused the shared secret (21004): `inconclusive`, a configuration problem.
        public static let sharedSecretRejected = Code(.decision(.sharedSecretRejected))
        /// Apple could not read our request (21000): `inconclusive`.
        public static let requestRejected = Code(.decision(.requestRejected))
        /// A status this package does not know: `inconclusive`.
        public static let unexpectedStatus = Code(.decision(.unexpectedStatus))
        /// 21006: the (iOS 6) receipt is genuine but its subscription has expired: `valid`, with this note.
        public static let subscriptionExpired = Code(.decision(.subscriptionExpired))
        /// Apple's `receipt` does not describe the receipt sent (kind, bundle id, transaction ids): the local
        /// verdict stands.
        public static let receiptMismatch = Code(.decision(.receiptMismatch))
        /// A note: the receipt's newest expiry is before the instant asked about.
        public static let subscriptionExpiredInReceipt = Code(.decision(.subscriptionExpiredInReceipt))

        /// The local code, when this is one.
        public var localCode: Reason.Code? {
            if case .local(let code) = kind { return code }
            return nil
        }

        /// The remote client's code, when this is one.
        public var remoteCode: RemoteError.Code? {
            if case .remote(let code) = kind { return code }
            return nil
        }

        public var description: String {
            switch kind {
            case .local(let code): code.description
            case .remote(let code): code.description
            case .decision(let decision): decision.rawValue
            }
        }
    }

    /// The stable code.
    public let code: Code
    /// What was found, in words.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A local verifier's reason.
    public init(_ reason: Reason) { self.init(Code(reason.code), reason.message) }

    /// A remote client's error.
    public init(_ error: RemoteError) { self.init(Code(error.code), error.reason) }

    public var description: String { "\(code): \(message)" }
}
