public import ReceiptModel
public import ReceiptVerification

/// One transaction as the ledger holds it: what a valid receipt said about it, and when the ledger first
/// and last saw it.
public struct LedgerTransaction: Sendable, Hashable {
    public var transactionID: String
    public var originalTransactionID: String
    public var productID: String
    public var kind: ProductKind
    public var bundleID: String
    /// The store environment, or `nil` when the source did not say (iOS 6 receipts may not).
    ///
    /// Only ``ReceiptEnvironment``'s cases are kept: a source naming another one (StoreKit's `LocalTesting`, an
    /// unknown word in Apple's unsigned answer) is recorded as saying none, as an over-long one always was. No
    /// decision reads the environment but the match between a receipt's and Apple's answer
    /// (`TransactionRecorder.renewals(in:tiedTo:environment:)`, which compares the texts as received), and a
    /// paid purchase is always `Production`: an unknown word kept verbatim would only travel to the JSON answers
    /// as a value clients cannot act on. The store writes `nil` as the empty text, as before, and reads any text
    /// it does not know (only an older or hand-edited row) as `nil`.
    public var environment: ReceiptEnvironment?
    public var purchaseDate: ReceiptDate?
    public var expiresDate: ReceiptDate?
    public var cancellationDate: ReceiptDate?
    public var webOrderLineItemID: String?
    public var source: LedgerSource
    /// The UUID the app set on a StoreKit 2 purchase to name its own account (JWS `appAccountToken`), when known.
    public var appAccountToken: String?
    public var firstSeen: ReceiptDate
    /// The last verification that showed it in a receipt the ledger had not recorded for that audience, or in a
    /// signed statement: a receipt seen again is answered from its key (``LedgerReceiptKey``) and touches nothing.
    public var lastSeen: ReceiptDate
    /// When Apple signed the latest statement about this transaction: a StoreKit 2 JWS's `signedDate` (on its own
    /// or nested in a notification), or an app receipt's creation date (Apple signs a receipt when it creates
    /// it). `nil` when no source said when it was signed (an iOS 6 receipt, Apple's unsigned verifyReceipt
    /// answer). The later-signed statement decides whether the transaction is refunded (a `REFUND_REVERSED`
    /// signed after a receipt that showed the refund lifts it).
    public var signedDate: ReceiptDate?
    /// Whether the transaction was reported new to its purchase's owner (a verification naming the account its
    /// original transaction id is bound to). Until then it is pending for the owner, whoever else saw it.
    public var reportedToOwner = false
    /// Whether the transaction was reported new to a verification naming no account (`/verifyReceipt`, or
    /// `/v1/verify` without `account`). Notifications report to no one.
    public var reportedWithoutAccount = false

    public init(
        transactionID: String, originalTransactionID: String, productID: String, kind: ProductKind,
        bundleID: String, environment: ReceiptEnvironment?, purchaseDate: ReceiptDate? = nil,
        expiresDate: ReceiptDate? = nil,
        cancellationDate: ReceiptDate? = nil, webOrderLineItemID: String? = nil, source: LedgerSource,
        firstSeen: ReceiptDate, lastSeen: ReceiptDate, signedDate: ReceiptDate? = nil, reportedToOwner: Bool = false,
        reportedWithoutAccount: Bool = false
    ) {
        self.signedDate = signedDate
        self.reportedToOwner = reportedToOwner
        self.reportedWithoutAccount = reportedWithoutAccount
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

    /// What the ledger keeps when it sees a known transaction again.
    ///
    /// - An unsigned sighting (``LedgerSource/isSigned``) changes nothing but `lastSeen`: Apple's unsigned answer
    ///   never rewrites a recorded fact.
    /// - A signed sighting of a transaction only an unsigned source reported replaces every fact with its own
    ///   (the first sighting and the reporting state stay).
    /// - Between signed sightings: the first sighting stays, `lastSeen` moves forward, the statement Apple signed
    ///   later decides the refund (a refund shown by an earlier statement is lifted by a later one without it:
    ///   a `REFUND_REVERSED`, or a receipt created after it), a kind is kept once known, and the latest expiry
    ///   wins. A statement of unknown signing time (an iOS 6 receipt) never removes a refund.
    func merged(with seen: LedgerTransaction) -> LedgerTransaction {
        var merged = self
        merged.lastSeen = max(lastSeen, seen.lastSeen)
        guard seen.source.isSigned else { return merged }
        guard source.isSigned else {
            merged = seen
            merged.firstSeen = firstSeen
            merged.lastSeen = max(lastSeen, seen.lastSeen)
            if merged.kind == .unknown { merged.kind = kind }
            merged.appAccountToken = seen.appAccountToken ?? appAccountToken
            merged.reportedToOwner = reportedToOwner
            merged.reportedWithoutAccount = reportedWithoutAccount
            return merged
        }
        switch (signedDate, seen.signedDate) {
        case (let held?, let signed?):
            // The statement Apple signed later decides the refund either way; an earlier one (a replayed JWS or an
            // older receipt) changes nothing about it.
            if signed > held {
                merged.cancellationDate = seen.cancellationDate
                merged.signedDate = signed
            }
        case (nil, let signed?):
            // The first statement of known signing time about a transaction known only from statements of unknown
            // time: it may add a refund, never remove one they showed (it may be older than they are).
            if merged.cancellationDate == nil { merged.cancellationDate = seen.cancellationDate }
            merged.signedDate = signed
        case (nil, nil):
            // Statements of unknown signing time: a refund once shown stays, and one may be added.
            if merged.cancellationDate == nil { merged.cancellationDate = seen.cancellationDate }
        case (_?, nil):
            // Of unknown signing time, about a transaction a statement of known time decided: nothing.
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
        held.merged(with: self).changesFacts(of: held)
    }

    /// Whether this record differs from `held` in anything but `lastSeen` (a fact, or whom it was reported to).
    func changesFacts(of held: LedgerTransaction) -> Bool {
        var copy = self
        copy.lastSeen = held.lastSeen
        return copy != held
    }
}
