/// How a ``MintRequest`` is signed and wrapped, with certificates and keys named by their test-PKI
/// file names. Turned into ``SignedDataOptions`` against a ``TestPKI``.
public struct SigningPlan: Hashable, Sendable, Codable {
    /// `sha1` or `sha256` (also `sha384`, `sha512`).
    public var digest: String
    /// The signers; empty makes a receipt with no `SignerInfo`. iOS 6 receipts use the first.
    public var signers: [SignerPlan]
    /// The certificates to embed, in order.
    public var certificates: [String]
    /// `der` (definite lengths) or `ber` (indefinite lengths on the outer structures).
    public var encoding: String?
    /// `primitive`, `xcode` (double OCTET STRING) or `segmented`.
    public var eContent: String?
    /// Segment length for `eContent: segmented`.
    package var segmentLength: Int?

    public init(
        digest: String = "sha256", signers: [SignerPlan], certificates: [String], encoding: String? = nil,
        eContent: String? = nil, segmentLength: Int? = nil
    ) {
        self.digest = digest
        self.signers = signers
        self.certificates = certificates
        self.encoding = encoding
        self.eContent = eContent
        self.segmentLength = segmentLength
    }
}
