import ReceiptLedger
import ReceiptModel
import ReceiptRemote
import ReceiptVerification

/// The transactions of a receipt verified locally, made only if the ledger needs them
/// (``ReceiptLedger/Ledger/record(_:receiptKey:derive:)``): a receipt the ledger already knows is answered from its
/// key, and a repeat sighting of a receipt listing hundreds of purchases costs no work per purchase.
///
/// The key (``ReceiptLedger/LedgerReceiptKey/key(receiptSHA256:derivation:account:)``) names everything the
/// transactions are made from: the receipt's bytes (the audit entry's SHA-256), the environment the verdict gives
/// them, the operator's catalogue (which sets their kinds), and the version of the making itself. The same key
/// means the same transactions.
struct DeferredTransactions {
    /// The version of ``TransactionRecorder/transactions(in:environment:)``, named in receipt keys: a change to what
    /// it makes of a receipt must change this, so that no key remembered before answers for the new transactions.
    static let derivationVersion = "1"

    let receiptKey: String
    private let payload: ReceiptPayload
    private let environment: String
    private let recorder: TransactionRecorder

    /// For a verification whose transactions are those of the app receipt it verified locally (valid, decided
    /// without Apple, not an Xcode receipt); `nil` for any other.
    init?(verification result: AttributedVerdict, entry: LedgerEntry, ledger: Ledger, recorder: TransactionRecorder) {
        let verdict = result.verdict
        guard result.decidedBy == .local, verdict.isValid, verdict.environment != .xcode,
            case .appReceipt(let receipt)? = verdict.receipt
        else { return nil }
        payload = receipt.payload
        environment = verdict.environment?.rawValue ?? ""
        self.recorder = recorder
        let derivation = [Self.derivationVersion, environment, ledger.catalogueFingerprint].joined(separator: ".")
        receiptKey = LedgerReceiptKey.key(
            receiptSHA256: entry.receiptSHA256, derivation: derivation, account: entry.account)
    }

    /// The transactions, as ``LedgerEntry/init(verification:received:endpoint:account:time:catalogue:onConflict:)``
    /// makes them for this verification.
    func derive() -> [LedgerTransaction] {
        recorder.transactions(in: payload, environment: environment)
    }
}
