import BER
import ReceiptCrypto
public import ReceiptLedger
public import ReceiptModel
public import ReceiptRemote
public import ReceiptVerification

extension LedgerEntry {
    /// The entry for one verification: the audit facts, and the transactions of the receipt when the verdict
    /// is `valid` (from the locally verified receipt, or from Apple's answer when Apple decided).
    ///
    /// A purchase record whose ids or product id are outside ``LedgerLimits`` cannot be a transaction Apple issued
    /// and is left out. When Apple decided (the remote fallback), its unsigned answer only adds what it can be
    /// tied to the receipt (``TransactionRecorder/transactions(decidedRemotely:)``).
    /// - Parameters:
    ///   - received: the receipt as the client sent it; its decoded bytes are hashed for the audit entry.
    ///   - catalogue: the operator's product kinds, which win over the receipt's.
    /// - Throws: ``IntakeError/Code/digestFailed`` when the audit entry's digest cannot be computed: an entry
    ///   without the receipt's digest is not recorded.
    public init(
        verification result: AttributedVerdict, received: ArraySlice<UInt8>, endpoint: String, account: String?,
        time: ReceiptDate, catalogue: ProductCatalogue, onConflict: ConflictPolicy
    ) throws(IntakeError) {
        try self.init(
            verification: result, received: received, endpoint: endpoint, account: account, time: time,
            onConflict: onConflict,
            transactions: TransactionRecorder(time: time, catalogue: catalogue).transactions(of: result))
    }

    /// The entry for one verification with the given transactions (none, for one whose transactions are made only
    /// if the ledger needs them: ``DeferredTransactions``).
    init(
        verification result: AttributedVerdict, received: ArraySlice<UInt8>, endpoint: String, account: String?,
        time: ReceiptDate, onConflict: ConflictPolicy, transactions: [LedgerTransaction]
    ) throws(IntakeError) {
        let verdict = result.verdict
        self.init(
            time: time, endpoint: endpoint, receiptSHA256: try Self.sha256(of: verdict.receipt, received: received),
            verdict: verdict.outcome,
            reason: verdict.reason.map { .verification($0.code) }, decidedBy: result.decidedBy, account: account,
            transactions: transactions, onConflict: onConflict)
    }

    /// SHA-256, in hex, of the receipt's decoded bytes (its DER, or its plist text): what the client wrapped in
    /// base64, quotes or a data URL hashes the same as the raw receipt. Bytes that do not decode are hashed as
    /// received.
    /// - Throws: ``IntakeError/Code/digestFailed``.
    package static func sha256(ofDecoded received: [UInt8]) throws(IntakeError) -> String {
        try sha256(of: nil, received: received[...])
    }

    /// The same hash, from the receipt the verifier already decoded when there is one (an app receipt's DER is
    /// kept as a slice; nothing is decoded again).
    static func sha256(of receipt: ReceiptInput?, received: ArraySlice<UInt8>) throws(IntakeError) -> String {
        if case .appReceipt(let decoded)? = receipt { return try sha256(decoded.encoded) }
        let canonical: ArraySlice<UInt8>
        do throws(ReceiptError) {
            canonical = try ReceiptInput.canonicalBytes(of: received).bytes
        } catch {
            // Not a receipt's form at all: what was received is what the audit entry names.
            canonical = received
        }
        return try sha256(canonical)
    }

    /// SHA-256 in lower-case hex.
    /// - Throws: ``IntakeError/Code/digestFailed`` when OpenSSL cannot compute it.
    static func sha256(_ bytes: ArraySlice<UInt8>) throws(IntakeError) -> String {
        do {
            return Hex.encode(try DigestAlgorithm.sha256.hash(bytes))
        } catch {
            throw IntakeError(.digestFailed, "the audit entry's SHA-256 cannot be computed: \(error)")
        }
    }
}

extension LedgerEntry {
    /// The entry for one JWS verification (a StoreKit 2 signed transaction or renewal info, or a V2 notification):
    /// the audit facts, and when the verdict is `valid` the transaction, the renewal info and the notification's
    /// record (from the notification's own verified nested JWS).
    /// - Parameters:
    ///   - received: the JWS text as received; its SHA-256 is the audit entry's digest.
    ///   - source: who handed over a signed transaction: StoreKit 2 (the app, by default) or the App Store Server API.
    /// - Throws: ``IntakeError/Code/digestFailed``.
    public init(
        jws verdict: JWSVerdict, received: [UInt8], endpoint: String, account: String?, time: ReceiptDate,
        catalogue: ProductCatalogue, onConflict: ConflictPolicy, source: LedgerSource = .storeKit
    ) throws(IntakeError) {
        var transactions: [LedgerTransaction] = []
        var renewals: [LedgerRenewal] = []
        var notification: LedgerNotification?
        // An Xcode-signed JWS (trusted only with the opt-in) is signed by a key any developer makes: it may be
        // verified, never recorded, or anyone could change what the ledger holds about real purchases.
        if verdict.isValid, verdict.environment != .xcode {
            let recorder = TransactionRecorder(time: time, catalogue: catalogue)
            switch verdict.payload {
            case .transaction(let jws)?:
                transactions = recorder.transaction(jws, source: source).map { [$0] } ?? []
            case .renewalInfo(let jws)?:
                renewals = recorder.renewal(jws).map { [$0] } ?? []
            case .notification(let payload)?:
                transactions =
                    verdict.verifiedTransaction.flatMap { recorder.transaction($0, source: .notification) }
                    .map { [$0] } ?? []
                renewals = verdict.verifiedRenewalInfo.flatMap { recorder.renewal($0) }.map { [$0] } ?? []
                notification = Self.notification(payload, received: time, about: transactions.first, renewals.first)
            case .appTransaction?, nil:
                break
            }
        }
        self.init(
            time: time, endpoint: endpoint,
            receiptSHA256: try Self.sha256(received[...]),
            verdict: verdict.outcome, reason: verdict.reason.map { .verification($0.code) }, decidedBy: .local,
            account: account,
            transactions: transactions, onConflict: onConflict)
        self.renewals = renewals
        self.notification = notification
    }

    /// A V2 notification's record: its `notificationUUID` (when it is one the stores can key on), what it was, and
    /// the app and environment it is about, from the signed payload's `data`, `summary`, `externalPurchaseToken` or
    /// `appData` (``NotificationV2/bundleID`` and ``NotificationV2/environment``). A bundle id outside
    /// ``LedgerLimits`` and an environment the ledger has no case for (`LocalTesting`, one Apple adds later) are
    /// recorded as none: the notification itself is still recorded once.
    static func notification(
        _ payload: NotificationV2, received: ReceiptDate, about transaction: LedgerTransaction?,
        _ renewal: LedgerRenewal?
    ) -> LedgerNotification? {
        guard let id = payload.notificationUUID, LedgerLimits.isNotificationID(id) else { return nil }
        let name = { (value: String?) in LedgerLimits.text(value, maximum: LedgerLimits.maximumNameLength) }
        return LedgerNotification(
            id: id, version: LedgerNotification.version2,
            notificationType: name(payload.notificationType?.rawValue) ?? "",
            subtype: name(payload.subtype?.rawValue),
            signedDate: payload.signedDate, received: received,
            originalTransactionID: transaction?.originalTransactionID ?? renewal?.originalTransactionID,
            bundleID: payload.bundleID.flatMap { LedgerLimits.isBundleID($0) ? $0 : nil },
            environment: payload.environment.flatMap { ReceiptEnvironment(rawValue: $0.rawValue) })
    }
}
