public import ReceiptVerification

/// Why an audit entry has the verdict it has: the reason code the trail's `reason` column holds.
///
/// That column mixes the code spaces of three layers, and this type keeps them apart so that a reader branches
/// on a case rather than on a string's prefix: the verdict's own deciding reason (the verifier's, the remote
/// fallback's `remote.*`, the ledger's `ledger.conflict`), the verifyReceipt status a route answered instead of
/// the verdict, and the refusal of a layer above the verifier (the server's `server.shared_secret_mismatch`). The
/// column's text (``description``) is exactly what was written before the type existed, so old rows and new ones
/// read the same; a text that fits none of the cases (a code this build does not know, or a hand-edited row) is
/// kept whole as ``unrecognized(_:)`` rather than failing the read.
public enum AuditReason: Sendable, Hashable, CustomStringConvertible {
    /// The verdict's deciding reason: a ``Reason/Code`` of the verifier or of a layer that decides verdicts
    /// (the remote fallback, the ledger).
    case verification(Reason.Code)
    /// The route answered this verifyReceipt status instead of the verdict (21007 for a sandbox receipt sent to
    /// the production endpoint, say): written `verify_receipt.status_<status>`.
    case verifyReceiptStatus(Int)
    /// A layer above the verifier refused the request before any verdict (the server's
    /// `server.shared_secret_mismatch` for a V1 notification with the wrong password): its own stable code.
    case refusal(code: String)
    /// A column text that fits none of the cases above, kept as read.
    case unrecognized(String)

    /// The prefix of a ``verifyReceiptStatus(_:)`` code.
    private static let statusPrefix = "verify_receipt.status_"
    /// The prefix of the codes of the layer above the verifier (``refusal(code:)``).
    private static let refusalPrefix = "server."
    /// The first component of every code a verdict can carry: the verifier's own, the remote fallback's
    /// (`remote.*`, `subscription.*`), the ledger's (`ledger.*`, `notification.*`).
    private static let verificationSpaces: Set<Substring> = [
        "signature", "chain", "receipt", "policy", "ios6", "jws", "verification", "remote", "subscription", "ledger",
        "notification",
    ]

    /// The reason as the `reason` column holds it.
    public var description: String {
        switch self {
        case .verification(let code): code.description
        case .verifyReceiptStatus(let status): Self.statusPrefix + String(status)
        case .refusal(let code): code
        case .unrecognized(let text): text
        }
    }

    /// Reads a `reason` column's text back: the case whose ``description`` is exactly `text`, else
    /// ``unrecognized(_:)`` (never a failure: the trail is append-only, and an old row must stay readable).
    public init(column text: String) {
        if text.hasPrefix(Self.statusPrefix), let status = Int(text.dropFirst(Self.statusPrefix.count)),
            Self.statusPrefix + String(status) == text
        {
            self = .verifyReceiptStatus(status)
        } else if text.hasPrefix(Self.refusalPrefix), text.utf8.count > Self.refusalPrefix.utf8.count {
            self = .refusal(code: text)
        } else if let space = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first,
            space.utf8.count < text.utf8.count, Self.verificationSpaces.contains(space)
        {
            self = .verification(Reason.Code(layerCode: text))
        } else {
            self = .unrecognized(text)
        }
    }
}
