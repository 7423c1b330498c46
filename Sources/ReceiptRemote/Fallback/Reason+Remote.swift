public import ReceiptVerification

/// The remote fallback's reason codes: what Apple's answer meant, and the remote client's failures
/// (``RemoteError/Code``), as ``ReceiptVerification/Reason/Code`` values so that a verdict Apple helped
/// decide has one kind of reason.
extension Reason.Code {
    /// Apple says the receipt is not genuine or not authorized (21003, 21010): `invalid`.
    public static let remoteRejected = Reason.Code(layerCode: "remote.rejected")
    /// Apple refused the shared secret (21004): `inconclusive`, a configuration problem.
    public static let remoteSharedSecretRejected = Reason.Code(layerCode: "remote.shared_secret_rejected")
    /// Apple could not read our request (21000): `inconclusive`.
    public static let remoteRequestRejected = Reason.Code(layerCode: "remote.request_rejected")
    /// A status this package does not know: `inconclusive`.
    public static let remoteUnexpectedStatus = Reason.Code(layerCode: "remote.unexpected_status")
    /// 21006: the (iOS 6) receipt is genuine but its subscription has expired: `valid`, with this note.
    public static let remoteSubscriptionExpired = Reason.Code(layerCode: "remote.subscription_expired")
    /// Apple's `receipt` does not describe the receipt sent (kind, bundle id, transaction ids): the local
    /// verdict stands.
    public static let remoteReceiptMismatch = Reason.Code(layerCode: "remote.receipt_mismatch")
    /// A signed item of an App Store Server API answer names another app or environment than the answer's unsigned
    /// envelope (and the request): it is not counted, whatever its signature.
    public static let remoteEnvelopeMismatch = Reason.Code(layerCode: "remote.envelope_mismatch")
    /// A note: the receipt's newest expiry is before the instant asked about.
    public static let subscriptionExpiredInReceipt = Reason.Code(layerCode: "subscription.expired_in_receipt")

    /// A remote client failure's code (`remote.timeout`, …).
    public init(_ code: RemoteError.Code) { self.init(layerCode: code.description) }

    /// The codes this layer adds: every one above and every ``RemoteError/Code``.
    static let remoteCodes: Set<Reason.Code> = Set<Reason.Code>([
        .remoteRejected, .remoteSharedSecretRejected, .remoteRequestRejected, .remoteUnexpectedStatus,
        .remoteSubscriptionExpired, .remoteReceiptMismatch, .subscriptionExpiredInReceipt, .remoteEnvelopeMismatch,
    ]).union(RemoteError.Code.all.map { Reason.Code($0) })

    /// `true` for a code of the remote fallback (Apple's answer or the client), `false` for the local
    /// verifier's.
    public var isRemote: Bool { Self.remoteCodes.contains(self) }
}

extension Reason {
    /// A remote client failure as a reason.
    public init(_ error: RemoteError) { self.init(Code(error.code), error.reason) }
}
