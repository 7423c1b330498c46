import ReceiptLedger
import ReceiptModel

/// A `ledger_renewals` row: one subscription's latest verified renewal info.
struct RenewalRecord: LedgerRecord {
    /// The columns, in the order the stores bind and read them.
    enum Column: String, LedgerColumn {
        case originalTransactionID = "original_transaction_id"
        case productID = "product_id"
        case autoRenewProductID = "auto_renew_product_id"
        case autoRenewStatus = "auto_renew_status"
        case isInBillingRetryPeriod = "in_billing_retry"
        case gracePeriodExpiresDate = "grace_period_expires_ms"
        case expirationIntent = "expiration_intent"
        case renewalDate = "renewal_date_ms"
        case offerType = "offer_type"
        case offerIdentifier = "offer_identifier"
        case environment
        case signedDate = "signed_date_ms"
        case updated = "updated_ms"

        static let inserted = allCases
        static let table = "ledger_renewals"

        var type: LedgerColumnType {
            switch self {
            case .originalTransactionID, .productID, .autoRenewProductID, .offerIdentifier, .environment: .text
            case .autoRenewStatus, .isInBillingRetryPeriod, .gracePeriodExpiresDate, .expirationIntent, .renewalDate,
                .offerType, .signedDate, .updated:
                .integer
            }
        }

        /// The columns a newer renewal info replaces: all but the key.
        static let replaced = allCases.filter { $0 != .originalTransactionID }
    }

    var renewal: LedgerRenewal

    init(_ renewal: LedgerRenewal) { self.renewal = renewal }

    func value(_ column: Column) -> LedgerValue {
        switch column {
        case .originalTransactionID: .text(renewal.originalTransactionID)
        case .productID: LedgerValue(renewal.productID)
        case .autoRenewProductID: LedgerValue(renewal.autoRenewProductID)
        case .autoRenewStatus: LedgerValue(renewal.autoRenewStatus)
        case .isInBillingRetryPeriod: LedgerValue(renewal.isInBillingRetryPeriod)
        case .gracePeriodExpiresDate: LedgerValue(renewal.gracePeriodExpiresDate?.millisecondsSince1970)
        case .expirationIntent: LedgerValue(renewal.expirationIntent)
        case .renewalDate: LedgerValue(renewal.renewalDate?.millisecondsSince1970)
        case .offerType: LedgerValue(renewal.offerType)
        case .offerIdentifier: LedgerValue(renewal.offerIdentifier)
        case .environment: .text(EnvironmentColumn.text(renewal.environment))
        case .signedDate: .integer(renewal.signedDate.millisecondsSince1970)
        case .updated: .integer(renewal.updated.millisecondsSince1970)
        }
    }

    init(reading row: some LedgerRow) throws {
        renewal = LedgerRenewal(
            originalTransactionID: try row.required(text: Column.originalTransactionID),
            productID: try row.text(Column.productID),
            autoRenewProductID: try row.text(Column.autoRenewProductID),
            autoRenewStatus: try row.integer(Column.autoRenewStatus),
            isInBillingRetryPeriod: try row.integer(Column.isInBillingRetryPeriod).map { $0 != 0 },
            gracePeriodExpiresDate: TransactionRecord.date(try row.integer(Column.gracePeriodExpiresDate)),
            expirationIntent: try row.integer(Column.expirationIntent),
            renewalDate: TransactionRecord.date(try row.integer(Column.renewalDate)),
            offerType: try row.integer(Column.offerType),
            offerIdentifier: try row.text(Column.offerIdentifier),
            environment: EnvironmentColumn.environment(try row.required(text: Column.environment)),
            signedDate: ReceiptDate(clampingMillisecondsSince1970: try row.required(integer: Column.signedDate)),
            updated: ReceiptDate(clampingMillisecondsSince1970: try row.required(integer: Column.updated)))
    }
}
