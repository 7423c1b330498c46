public import ReceiptModel
public import ReceiptVerification

/// A subscription's renewal state as the ledger holds it: the latest verified renewal info (StoreKit 2 JWS, on
/// its own or nested in a V2 notification) for one original transaction id, by its `signedDate`.
///
/// Renewal info is not monotonic (billing retry starts and ends, auto-renew is turned off and on), so a sighting
/// replaces the held one only when Apple signed it later: a notification that arrives late never overwrites
/// newer state.
public struct LedgerRenewal: Sendable, Hashable {
    public var originalTransactionID: String
    public var productID: String?
    /// The product the subscription renews into.
    public var autoRenewProductID: String?
    /// 1 renews automatically, 0 turned off.
    public var autoRenewStatus: Int64?
    /// Apple is trying to collect a failed renewal's payment.
    public var isInBillingRetryPeriod: Bool?
    /// The end of the grace period during which the customer keeps access while Apple retries the payment.
    public var gracePeriodExpiresDate: ReceiptDate?
    public var expirationIntent: Int64?
    public var renewalDate: ReceiptDate?
    /// The offer the next renewal applies: 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int64?
    /// The promotional offer's id or the offer code's reference name.
    public var offerIdentifier: String?
    /// The store environment, or `nil` when the renewal info named none of ``ReceiptEnvironment``'s cases (see
    /// ``LedgerTransaction/environment``).
    public var environment: ReceiptEnvironment?
    /// When Apple signed the renewal info: what orders sightings.
    public var signedDate: ReceiptDate
    /// When the ledger recorded it.
    public var updated: ReceiptDate

    public init(
        originalTransactionID: String, productID: String? = nil, autoRenewProductID: String? = nil,
        autoRenewStatus: Int64? = nil, isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: ReceiptDate? = nil,
        expirationIntent: Int64? = nil, renewalDate: ReceiptDate? = nil, offerType: Int64? = nil,
        offerIdentifier: String? = nil, environment: ReceiptEnvironment?, signedDate: ReceiptDate, updated: ReceiptDate
    ) {
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.originalTransactionID = originalTransactionID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.expirationIntent = expirationIntent
        self.renewalDate = renewalDate
        self.environment = environment
        self.signedDate = signedDate
        self.updated = updated
    }
}
