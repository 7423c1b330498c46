public import ReceiptModel

/// One transaction as the ledger holds it: what a valid receipt said about it, and when the ledger first
/// and last saw it.
public struct LedgerTransaction: Sendable, Hashable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    public var kind: ProductKind
    public var bundleID: String
    /// `Production`, `Sandbox`, `Xcode`, or empty when the receipt did not say (iOS 6 receipts may not).
    public var environment: String
    public var purchaseDate: ReceiptDate?
    public var expiresDate: ReceiptDate?
    public var cancellationDate: ReceiptDate?
    public var webOrderLineItemID: String?
    public var source: LedgerSource
    /// The UUID the app set on a StoreKit 2 purchase to name its own account (JWS `appAccountToken`), when known.
    public var appAccountToken: String?
    public var firstSeen: ReceiptDate
    public var lastSeen: ReceiptDate
    /// When Apple signed the latest StoreKit 2 statement about this transaction (a JWS, or one nested in a
    /// notification); `nil` while only receipts reported it. A later-signed statement decides whether the
    /// transaction is refunded (a `REFUND_REVERSED` clears a refund).
    public var signedDate: ReceiptDate?

    public init(
        transactionID: String, originalTransactionID: String, productID: String, kind: ProductKind,
        bundleID: String, environment: String, purchaseDate: ReceiptDate? = nil, expiresDate: ReceiptDate? = nil,
        cancellationDate: ReceiptDate? = nil, webOrderLineItemID: String? = nil, source: LedgerSource,
        firstSeen: ReceiptDate, lastSeen: ReceiptDate, signedDate: ReceiptDate? = nil
    ) {
        self.signedDate = signedDate
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.kind = kind
        self.bundleID = bundleID
        self.environment = environment
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.cancellationDate = cancellationDate
        self.webOrderLineItemID = webOrderLineItemID
        self.source = source
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }

    /// What the ledger keeps when it sees a known transaction again: the first sighting, the latest
    /// `lastSeen`, a cancellation once one is reported (removed only by a StoreKit 2 statement Apple signed later
    /// than the one that decided it: a refund reversed), a kind once one is known, and the latest expiry.
    func merged(with seen: LedgerTransaction) -> LedgerTransaction {
        var merged = self
        merged.lastSeen = max(lastSeen, seen.lastSeen)
        switch (signedDate, seen.signedDate) {
        case (let held?, let signed?):
            // Two StoreKit 2 statements: the one Apple signed later decides the refund either way (REFUND,
            // REFUND_REVERSED); an earlier one (a replayed JWS) changes nothing about it.
            if signed > held {
                merged.cancellationDate = seen.cancellationDate
                merged.signedDate = signed
            }
        case (nil, let signed?):
            // The first signed statement about a transaction known from receipts: it may add a refund, never
            // remove one a receipt showed (it may be older than that receipt).
            if merged.cancellationDate == nil { merged.cancellationDate = seen.cancellationDate }
            merged.signedDate = signed
        case (nil, nil):
            // Receipts: a refund once shown stays.
            if merged.cancellationDate == nil { merged.cancellationDate = seen.cancellationDate }
        case (_?, nil):
            // A receipt, of no known signing time, about a transaction a signed statement decided: nothing.
            break
        }
        if merged.kind == .unknown { merged.kind = seen.kind }
        if let expiry = seen.expiresDate, merged.expiresDate.map({ expiry > $0 }) ?? true {
            merged.expiresDate = expiry
        }
        if merged.webOrderLineItemID == nil { merged.webOrderLineItemID = seen.webOrderLineItemID }
        if merged.appAccountToken == nil { merged.appAccountToken = seen.appAccountToken }
        return merged
    }

    /// Whether merging this sighting into `held` (``merged(with:)``) would change anything but `lastSeen`.
    func addsFacts(to held: LedgerTransaction) -> Bool {
        var merged = held.merged(with: self)
        merged.lastSeen = held.lastSeen
        return merged != held
    }
}
