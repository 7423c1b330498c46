@_spi(Fuzzing) package import BER
package import ReceiptCrypto

/// How ``ReceiptMinter`` wraps a payload in PKCS#7 `SignedData`.
///
/// The defaults make a receipt shaped like Apple's, with whatever signers and certificates are
/// given. Every hostile container variant is one of these knobs: no signer, two signers,
/// certificates left out or swapped, dishonest signed attributes.
public struct SignedDataOptions: Sendable {
    /// The digest each signer uses (SHA-1 in Apple receipts up to at least mid-2023, SHA-256 in later ones:
    /// `docs/receipt-format.md` §1).
    package var digest: DigestAlgorithm
    /// The `SignerInfo`s, in order. Empty makes a receipt with no signer.
    public var signers: [SignerOptions]
    /// The `certificates` field, in order (Apple: leaf, intermediate, root). Empty omits the field.
    public var certificates: [ForgeCertificate]
    /// `.indefinite` writes the outer structures with indefinite lengths, as Xcode's StoreKit Testing receipts
    /// do (Apple-signed receipts use definite lengths: `docs/receipt-format.md` §1).
    package var lengthForm: DERWriter.LengthForm
    /// How the payload sits in `eContent`.
    public var eContentForm: EContentForm

    /// Options for a receipt.
    package init(
        digest: DigestAlgorithm = .sha256, signers: [SignerOptions], certificates: [ForgeCertificate],
        lengthForm: DERWriter.LengthForm = .definite, eContentForm: EContentForm = .primitive
    ) {
        self.digest = digest
        self.signers = signers
        self.certificates = certificates
        self.lengthForm = lengthForm
        self.eContentForm = eContentForm
    }
}
